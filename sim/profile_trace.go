package sim

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/sarchlab/akita/v3/tracing"
	"github.com/warpgraph/warpgraph/sim/timing"
)

// WithTrace records akita's task trace of the device's timing model into
// the SQLite database path (akita's SQLiteTraceWriter; ".sqlite3" is
// added unless path ends with it), which akita's Daisen visualiser reads
// (go run github.com/sarchlab/akita/v3/daisen -sqlite FILE). Every akita
// component of the GPU is traced: the SMs (a task per CTA, kind "cta", and
// a req_out task per memory request, below its CTA), the L1s, L2 slices and
// DRAM channels (akita's cache and DRAM tasks), and the atomic units'
// requests as they arrive. The file must not exist; Close completes it.
// A trace holds a row per memory request and grows fast: keep traced
// runs small. Like WithProfile, timing mode only; and the serial engine
// only.
func WithTrace(path string) Option {
	return func(o *options) { o.profilingOpts().tracePath = path }
}

// TraceFile is the file WithTrace(path) writes.
func TraceFile(path string) string {
	if strings.HasSuffix(path, ".sqlite3") {
		return path
	}
	return path + ".sqlite3"
}

// tracer is the trace of one device.
type tracer struct {
	db *tracing.DBTracer
}

// attach starts the trace of gpu's components when WithTrace asks for one.
func (p *profiling) attach(gpu *timing.GPU) (err error) {
	if p == nil || p.tracePath == "" || p.tracer != nil {
		return nil
	}
	file := TraceFile(p.tracePath)
	if _, err := os.Stat(file); err == nil {
		return fmt.Errorf("sim: trace file %s exists; give a new name", file)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("sim: trace: %w", err)
	}
	defer func() {
		// akita's writer panics when it cannot create its database.
		if r := recover(); r != nil {
			err = fmt.Errorf("sim: trace %s: %v", file, r)
		}
	}()
	w := tracing.NewSQLiteTraceWriter(strings.TrimSuffix(file, ".sqlite3"))
	w.Init()
	db := tracing.NewDBTracer(gpu.Engine(), w)
	for _, c := range gpu.Components() {
		if h, ok := c.(tracing.NamedHookable); ok {
			tracing.CollectTrace(h, db)
		}
	}
	p.tracer = &tracer{db: db}
	return nil
}

// close ends the tasks still open and writes what is buffered.
func (t *tracer) close() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("sim: trace: %v", r)
		}
	}()
	t.db.Terminate()
	return nil
}
