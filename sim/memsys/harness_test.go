package memsys

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/sarchlab/akita/v3/mem/mem"
	"github.com/sarchlab/akita/v3/sim"
	"github.com/stretchr/testify/require"
)

// testConfig is a small memory system with round numbers, not a model of
// any GPU: a 2 KB, 2-way L1 (8 sets) and four 16 KB, 4-way L2 slices, small
// enough that evictions are easy to provoke, at a 1 GHz clock.
func testConfig() Config {
	return Config{
		LineSizeBytes:           128,
		SectorSizeBytes:         32,
		L1SizeBytes:             2 * 1024, // 8 sets of 2 ways
		L1Ways:                  2,
		L1MSHRs:                 8,
		L1MaxInflight:           32,
		L1RequestsPerCycle:      1,
		L1HitLatency:            30,
		L2Slices:                4,
		L2SliceSizeBytes:        16 * 1024,
		L2Ways:                  4,
		L2MSHRs:                 16,
		L2RequestsPerCycle:      1,
		L2SliceBytesPerCycle:    64,
		L2HitLatency:            200,
		L2InterleaveBytes:       256,
		SMToL2BytesPerCycle:     64,
		DRAMLatency:             500,
		DRAMBandwidthGBPerS:     256, // 64 bytes per cycle per channel at 1 GHz
		AtomicLatency:           300,
		AtomicOpsPerCycle:       1,
		AtomicSameAddressCycles: 10,
	}
}

// record is one request a fakeSM sent and when it completed.
type record struct {
	req    sim.Msg
	issued uint64
	done   uint64
	ok     bool
}

func (r *record) latency() uint64 { return r.done - r.issued }

// fakeSM stands in for an SM's load/store unit: it sends scripted requests
// from its Tick and records the cycle each response is retrieved. In serial
// mode it sends the next request in the Tick that retrieves the previous
// response, like a pointer-chasing microbenchmark.
type fakeSM struct {
	*sim.TickingComponent
	port sim.Port
	sys  *System
	sm   int

	serial      bool
	startCycle  int // cycle of the first Tick
	perCycle    int
	script      []func(now sim.VTimeInSec) sim.Msg
	outstanding map[string]*record
	records     []*record
	lastDone    sim.VTimeInSec
}

func newFakeSM(t testing.TB, engine sim.Engine, sys *System, sm int) *fakeSM {
	t.Helper()
	f := &fakeSM{sys: sys, sm: sm, perCycle: 1, outstanding: map[string]*record{}}
	f.TickingComponent = sim.NewTickingComponent(
		fmt.Sprintf("SM[%d]", sm), engine, sys.Freq(), f)
	f.port = sim.NewLimitNumMsgPort(f, 64, fmt.Sprintf("SM[%d].Port", sm))
	f.AddPort("Mem", f.port)
	sys.ConnectSM(sm, f.port)
	return f
}

// read, write and atomic append one request to the script.
func (f *fakeSM) read(addr uint64, mask uint32) {
	f.script = append(f.script, func(sim.VTimeInSec) sim.Msg {
		return f.sys.NewLineRead(f.port, f.sm, addr, mask, f.nextID())
	})
}

func (f *fakeSM) readBypass(addr uint64, mask uint32) {
	f.script = append(f.script, func(sim.VTimeInSec) sim.Msg {
		return f.sys.NewLineReadBypass(f.port, f.sm, addr, mask, f.nextID())
	})
}

func (f *fakeSM) write(addr uint64, mask uint32) {
	f.script = append(f.script, func(sim.VTimeInSec) sim.Msg {
		return f.sys.NewLineWrite(f.port, f.sm, addr, mask, f.nextID())
	})
}

func (f *fakeSM) atomic(sector uint64, ops ...AtomicOp) {
	f.script = append(f.script, func(sim.VTimeInSec) sim.Msg {
		return f.sys.NewAtomic(f.port, sector, ops, f.nextID())
	})
}

func (f *fakeSM) nextID() string {
	return fmt.Sprintf("sm%d.%d", f.sm, len(f.records))
}

// start makes the SM tick at its start cycle.
func (f *fakeSM) start() {
	f.TickNow(sim.VTimeInSec(float64(f.startCycle) / float64(f.Freq)))
}

func (f *fakeSM) Tick(now sim.VTimeInSec) bool {
	progress := false
	cycle := f.Freq.Cycle(now)
	for msg := f.port.Retrieve(now); msg != nil; msg = f.port.Retrieve(now) {
		id := respondTo(msg)
		rec := f.outstanding[id]
		if rec == nil {
			panic("fakeSM: response to unknown request " + id)
		}
		delete(f.outstanding, id)
		rec.done, rec.ok = cycle, true
		f.lastDone = now
		progress = true
	}
	for sent := 0; sent < f.perCycle && len(f.script) > 0; sent++ {
		if f.serial && len(f.outstanding) > 0 {
			break
		}
		req := f.script[0](now)
		if f.port.Send(req) != nil {
			break
		}
		f.script = f.script[1:]
		rec := &record{req: req, issued: cycle}
		f.outstanding[req.Meta().ID] = rec
		f.records = append(f.records, rec)
		progress = true
	}
	return progress
}

func respondTo(msg sim.Msg) string {
	switch m := msg.(type) {
	case *mem.DataReadyRsp:
		return m.RespondTo
	case *mem.WriteDoneRsp:
		return m.RespondTo
	case *AtomicRsp:
		return m.RespondTo
	}
	panic(fmt.Sprintf("fakeSM: unexpected %T", msg))
}

// parallelSuite makes rigs and stream runs use akita's parallel engine
// (TestParallelEngine sets it while it runs the suite again).
var parallelSuite bool

// newEngine returns a fresh engine of the kind the suite runs on.
func newEngine() sim.Engine {
	if parallelSuite {
		return sim.NewParallelEngine()
	}
	return sim.NewSerialEngine()
}

// rig is a memory system with fake SMs on a fresh engine.
type rig struct {
	engine sim.Engine
	sys    *System
	sms    []*fakeSM
	events atomic.Int64
}

// eventCounter counts the events the engine runs (atomically: the
// parallel engine runs events on several goroutines).
type eventCounter struct{ n *atomic.Int64 }

func (h eventCounter) Func(ctx sim.HookCtx) {
	if ctx.Pos == sim.HookPosBeforeEvent {
		h.n.Add(1)
	}
}

func newRig(t testing.TB, cfg Config, numSMs int) *rig {
	t.Helper()
	r := &rig{engine: newEngine()}
	r.engine.AcceptHook(eventCounter{&r.events})
	sys, err := MakeBuilder().
		WithEngine(r.engine).
		WithFreq(1 * sim.GHz).
		WithConfig(cfg).
		WithNumSMs(numSMs).
		Build("Mem")
	require.NoError(t, err)
	r.sys = sys
	for i := range numSMs {
		r.sms = append(r.sms, newFakeSM(t, r.engine, sys, i))
	}
	return r
}

// run starts every SM that has a script and runs the engine until no event
// is left; that the engine returns at all shows that every component went
// back to sleep.
func (r *rig) run(t testing.TB) {
	t.Helper()
	for _, sm := range r.sms {
		if len(sm.script) > 0 {
			sm.start()
		}
	}
	require.NoError(t, r.engine.Run())
	for _, sm := range r.sms {
		require.Empty(t, sm.script, "SM %d did not send its whole script", sm.sm)
		require.Empty(t, sm.outstanding, "SM %d has requests without response", sm.sm)
	}
}

// latencies returns the latency of every request SM sm sent, in order.
func (r *rig) latencies(sm int) []uint64 {
	var out []uint64
	for _, rec := range r.sms[sm].records {
		out = append(out, rec.latency())
	}
	return out
}
