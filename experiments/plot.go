package experiments

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plots are drawn with gonum.org/v1/plot: pure Go (no cgo, no Python, no
// system fonts), so the same binary that runs a sweep draws its figures on
// any machine, in PNG for reading and SVG for papers.

// plotFormats are the files every figure is saved as.
var plotFormats = []string{"png", "svg"}

// series is one line of a figure.
type series struct {
	label  string
	xs, ys []float64
	dashed bool
}

// lineFigure describes a figure of lines over a shared x axis.
type lineFigure struct {
	title, xLabel, yLabel string
	logX, logY            bool
	// xTicks, when set, are the x values to label (e.g. powers of two).
	xTicks []float64
	// refY draws a dotted horizontal line at this y (e.g. a ratio of 1).
	refY   float64
	series []series
}

// palette is colour-blind-safe (Okabe and Ito).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{213, 94, 0, 255},    // vermillion
	color.RGBA{0, 158, 115, 255},   // bluish green
	color.RGBA{204, 121, 167, 255}, // reddish purple
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{86, 180, 233, 255},  // sky blue
	color.RGBA{0, 0, 0, 255},       // black
	color.RGBA{240, 228, 66, 255},  // yellow
}

// save writes the figure as dir/name.{png,svg} and returns the file names.
func (f lineFigure) save(dir, name string) ([]string, error) {
	p := plot.New()
	p.Title.Text = f.title
	p.X.Label.Text = f.xLabel
	p.Y.Label.Text = f.yLabel
	if f.logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if f.logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	if len(f.xTicks) > 0 {
		p.X.Tick.Marker = valueTicks(f.xTicks)
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	drawn := 0
	for i, s := range f.series {
		xys := make(plotter.XYs, 0, len(s.xs))
		for j := range s.xs {
			if (f.logX && s.xs[j] <= 0) || (f.logY && s.ys[j] <= 0) || math.IsNaN(s.ys[j]) {
				continue
			}
			xys = append(xys, plotter.XY{X: s.xs[j], Y: s.ys[j]})
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		c := palette[i%len(palette)]
		line.Color, points.Color = c, c
		line.Width = vg.Points(1.5)
		points.Shape = draw.CircleGlyph{}
		if s.dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			points.Shape = draw.TriangleGlyph{}
		}
		p.Add(line, points)
		p.Legend.Add(s.label, line, points)
		drawn++
	}
	if drawn == 0 {
		return nil, nil // nothing measured (every point failed): no figure
	}
	if f.refY != 0 {
		ref := plotter.NewFunction(func(float64) float64 { return f.refY })
		ref.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
		ref.Color = color.Gray{Y: 80}
		p.Add(ref)
	}
	return saveAll(p, dir, name, 16*vg.Centimeter, 10*vg.Centimeter)
}

// dotGroup is one series of a dot plot: a value per category.
type dotGroup struct {
	label  string
	values []float64
}

// dotFigure is a dot plot over nominal x categories, one marker per
// group and category (bars cannot sit on a log scale, which has no zero).
type dotFigure struct {
	title, yLabel string
	logY          bool
	categories    []string
	groups        []dotGroup
}

func (f dotFigure) save(dir, name string) ([]string, error) {
	if len(f.categories) == 0 || len(f.groups) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = f.title
	p.Y.Label.Text = f.yLabel
	if f.logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}}
	spread := 0.5 / float64(len(f.groups))
	drawn := 0
	for i, g := range f.groups {
		var xys plotter.XYs
		for j, v := range g.values {
			if math.IsNaN(v) || f.logY && v <= 0 {
				continue
			}
			x := float64(j) + (float64(i)-float64(len(f.groups)-1)/2)*spread
			xys = append(xys, plotter.XY{X: x, Y: v})
		}
		if len(xys) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.Color = palette[i%len(palette)]
		sc.Shape = shapes[i%len(shapes)]
		sc.Radius = vg.Points(3.5)
		p.Add(sc)
		p.Legend.Add(g.label, sc)
		drawn++
	}
	if drawn == 0 {
		return nil, nil
	}
	p.Legend.Top = true
	p.NominalX(f.categories...)
	p.X.Min, p.X.Max = -0.6, float64(len(f.categories))-0.4
	p.X.Tick.Label.Rotation = math.Pi / 4
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	w := vg.Length(math.Max(16, 1.0*float64(len(f.categories)))) * vg.Centimeter
	return saveAll(p, dir, name, w, 11*vg.Centimeter)
}

func saveAll(p *plot.Plot, dir, name string, w, h vg.Length) ([]string, error) {
	var files []string
	for _, ext := range plotFormats {
		file := name + "." + ext
		if err := p.Save(w, h, filepath.Join(dir, file)); err != nil {
			return files, fmt.Errorf("saving %s: %w", file, err)
		}
		files = append(files, file)
	}
	return files, nil
}

// valueTicks labels exactly the given values.
type valueTicks []float64

func (t valueTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, v := range t {
		if v >= lo && v <= hi {
			out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
		}
	}
	return out
}

// groupSeries splits rows into series by a label, with x and y read from
// columns; rows without both numbers are left out. Series keep the order
// of their first row, points their x order.
func groupSeries(rows []Row, label func(Row) string, x, y string) []series {
	var out []series
	at := map[string]int{}
	for _, r := range rows {
		xv, okx := r.Float(x)
		yv, oky := r.Float(y)
		if !okx || !oky {
			continue
		}
		l := label(r)
		i, ok := at[l]
		if !ok {
			i = len(out)
			at[l] = i
			out = append(out, series{label: l})
		}
		out[i].xs = append(out[i].xs, xv)
		out[i].ys = append(out[i].ys, yv)
	}
	for i := range out {
		s := &out[i]
		idx := make([]int, len(s.xs))
		for j := range idx {
			idx[j] = j
		}
		sort.SliceStable(idx, func(a, b int) bool { return s.xs[idx[a]] < s.xs[idx[b]] })
		xs, ys := make([]float64, len(idx)), make([]float64, len(idx))
		for j, k := range idx {
			xs[j], ys[j] = s.xs[k], s.ys[k]
		}
		s.xs, s.ys = xs, ys
	}
	return out
}

// where names a row's machine: the simulator configuration, or "hardware"
// with the device name.
func where(r Row) string {
	if r["target"] == TargetSim {
		return "sim " + r["config"]
	}
	if r["device"] != "" {
		return r["device"]
	}
	return r["target"]
}
