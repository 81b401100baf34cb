package experiments

import (
	"fmt"
	"image/color"
	"io"
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
	// group picks the colour: series of one group (one machine) share it,
	// told apart by dashes and markers; "" gives every series its own.
	group string
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
		p.X.Tick.Marker = logTicks{}
	}
	if f.logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	if len(f.xTicks) > 0 {
		p.X.Tick.Marker = valueTicks(f.xTicks)
	}
	p.Add(plotter.NewGrid())
	drawn := 0
	colours := map[string]int{}
	for i, s := range f.series {
		key := s.group
		if key == "" {
			key = fmt.Sprint(i)
		}
		if _, ok := colours[key]; !ok {
			colours[key] = len(colours)
		}
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
		c := palette[colours[key]%len(palette)]
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

// dotFigure is a dot plot with one row per category (labels stay
// horizontal however many there are) and one marker per group; bars
// cannot sit on a log scale, which has no zero.
type dotFigure struct {
	title, xLabel string
	logX          bool
	categories    []string
	groups        []dotGroup
}

func (f dotFigure) save(dir, name string) ([]string, error) {
	if len(f.categories) == 0 || len(f.groups) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = f.title
	p.X.Label.Text = f.xLabel
	if f.logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	p.Add(plotter.NewGrid())
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}}
	drawn := 0
	n := len(f.categories)
	for i, g := range f.groups {
		var xys plotter.XYs
		for j, v := range g.values {
			if math.IsNaN(v) || f.logX && v <= 0 {
				continue
			}
			// The first category at the top.
			xys = append(xys, plotter.XY{X: v, Y: float64(n - 1 - j)})
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
		sc.Radius = vg.Points(3)
		p.Add(sc)
		p.Legend.Add(g.label, sc)
		drawn++
	}
	if drawn == 0 {
		return nil, nil
	}
	labels := make([]string, n)
	for j, c := range f.categories {
		labels[n-1-j] = c
	}
	p.NominalY(labels...)
	p.Y.Min, p.Y.Max = -0.7, float64(n)-0.3
	// Pad the value axis so the extreme dots are not drawn on its ends.
	if f.logX {
		p.X.Min, p.X.Max = p.X.Min/1.15, p.X.Max*1.15
	} else if span := p.X.Max - p.X.Min; span > 0 {
		p.X.Min, p.X.Max = p.X.Min-0.05*span, p.X.Max+0.05*span
	}
	p.Title.Padding = vg.Points(8)
	h := vg.Length(math.Max(10, 2.5+0.42*float64(n))) * vg.Centimeter
	return saveAll(p, dir, name, 20*vg.Centimeter, h)
}

// saveAll writes the plot in every format, with its legend (if any) to
// the right of the plot area, where it cannot hide a line or the title.
func saveAll(p *plot.Plot, dir, name string, w, h vg.Length) ([]string, error) {
	legend := p.Legend
	p.Legend = plot.NewLegend()
	legend.Top, legend.Left = true, true
	var legendW vg.Length
	pad := vg.Points(12)
	r := legend.Rectangle(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}})
	if width := r.Max.X - r.Min.X; width > 0 { // no entries: no legend
		legendW = width + 2*pad
	}
	// The legend starts just right of the data area (gonum may leave room
	// inside the plot's own width), measured on a scratch canvas.
	legendX, total := w, w
	if legendW > 0 {
		scratch, err := draw.NewFormattedCanvas(w, h, "png")
		if err != nil {
			return nil, err
		}
		legendX = p.DataCanvas(draw.New(scratch)).Max.X + pad
		total = max(w, legendX+legendW)
	}
	var files []string
	for _, ext := range plotFormats {
		file := name + "." + ext
		c, err := draw.NewFormattedCanvas(total, h, ext)
		if err != nil {
			return files, err
		}
		dc := draw.New(c)
		p.Draw(draw.Crop(dc, 0, w-total, 0, 0))
		if legendW > 0 {
			top := -p.Title.TextStyle.Height(p.Title.Text) - 2*pad
			legend.Draw(draw.Crop(dc, legendX, 0, 0, top))
		}
		if err := writeTo(filepath.Join(dir, file), c); err != nil {
			return files, fmt.Errorf("saving %s: %w", file, err)
		}
		files = append(files, file)
	}
	return files, nil
}

func writeTo(path string, c io.WriterTo) error {
	return writeAtomically(path, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	})
}

// logTicks labels 1, 2 and 5 times each power of ten in range (only the
// powers of ten when the range spans more than three decades), with
// unlabelled minor ticks between.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	wide := math.Log10(hi/lo) > 3
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		base := math.Pow(10, e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * base
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			label := ""
			if m == 1 || !wide && (m == 2 || m == 5) {
				label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			out = append(out, plot.Tick{Value: v, Label: label})
		}
	}
	return out
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
