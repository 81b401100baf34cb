package memsys

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sarchlab/akita/v3/sim"
	"github.com/stretchr/testify/require"
)

// benchConfig is an H100-sized memory system for speed measurements. Sizes
// follow public specifications (256 KB of L1/shared memory per SM, 50 MB of
// L2, 3.35 TB/s of HBM3 on the SXM part, 1755 MHz boost clock); slice
// counts, bandwidths per port and latencies are estimates. The simulator's
// configurations own the real numbers.
func benchConfig() Config {
	return Config{
		LineSizeBytes:           128,
		SectorSizeBytes:         32,
		L1SizeBytes:             256 * 1024,
		L1Ways:                  4,
		L1MSHRs:                 64,
		L1MaxInflight:           128,
		L1RequestsPerCycle:      1,
		L1HitLatency:            32,
		L2Slices:                64,
		L2SliceSizeBytes:        50 * 1024 * 1024 / 64,
		L2Ways:                  16,
		L2MSHRs:                 64,
		L2RequestsPerCycle:      1,
		L2SliceBytesPerCycle:    64,
		L2HitLatency:            260,
		L2InterleaveBytes:       256,
		SMToL2BytesPerCycle:     64,
		DRAMLatency:             520,
		DRAMBandwidthGBPerS:     3350,
		AtomicLatency:           300,
		AtomicOpsPerCycle:       1,
		AtomicSameAddressCycles: 2,
	}
}

const benchFreq = 1755 * sim.MHz

// streamSM replays the global accesses of a stream kernel (c[i] = a[i] +
// b[i], 4-byte elements): each warp loads one line of a and one of b and,
// once both arrived, stores one line of c. It keeps at most maxWarps warps
// resident and issues one request per cycle, as one load/store unit would.
type streamSM struct {
	*sim.TickingComponent
	port sim.Port
	sys  *System
	sm   int

	warps    []int // the warps this SM runs, in order
	started  int
	maxWarps int
	resident int

	ready       []streamAccess // requests waiting for the load/store unit
	loadsLeft   map[int]int    // per resident warp
	inflight    map[string]streamAccess
	nextID      uint64
	idPrefix    string
	finishedAt  sim.VTimeInSec
	done        int
	loadLatency uint64 // summed over the loads, in cycles
}

type streamAccess struct {
	warp   int
	store  bool
	addr   uint64
	issued uint64
}

const (
	streamA = 0x1000_0000
	streamB = 0x2000_0000
	streamC = 0x3000_0000
)

func newStreamSM(engine sim.Engine, sys *System, sm, maxWarps int) *streamSM {
	s := &streamSM{
		sys: sys, sm: sm, maxWarps: maxWarps,
		loadsLeft: map[int]int{},
		inflight:  map[string]streamAccess{},
		idPrefix:  "sm" + strconv.Itoa(sm) + ".",
	}
	s.TickingComponent = sim.NewTickingComponent(
		fmt.Sprintf("SM[%d]", sm), engine, sys.Freq(), s)
	s.port = sim.NewLimitNumMsgPort(s, 64, fmt.Sprintf("SM[%d].Port", sm))
	s.AddPort("Mem", s.port)
	sys.ConnectSM(sm, s.port)
	return s
}

func (s *streamSM) Tick(now sim.VTimeInSec) bool {
	progress := false
	for msg := s.port.Retrieve(now); msg != nil; msg = s.port.Retrieve(now) {
		progress = true
		id := respondTo(msg)
		acc := s.inflight[id]
		delete(s.inflight, id)
		if !acc.store {
			s.loadLatency += s.Freq.Cycle(now) - acc.issued
		}
		if acc.store {
			s.resident--
			s.done++
			s.finishedAt = now
			continue
		}
		s.loadsLeft[acc.warp]--
		if s.loadsLeft[acc.warp] == 0 {
			delete(s.loadsLeft, acc.warp)
			line := uint64(acc.warp) * 128
			s.ready = append(s.ready, streamAccess{warp: acc.warp, store: true, addr: streamC + line})
		}
	}
	for s.resident < s.maxWarps && s.started < len(s.warps) {
		w := s.warps[s.started]
		s.started++
		s.resident++
		s.loadsLeft[w] = 2
		line := uint64(w) * 128
		s.ready = append(s.ready,
			streamAccess{warp: w, addr: streamA + line},
			streamAccess{warp: w, addr: streamB + line})
	}
	if len(s.ready) > 0 {
		acc := s.ready[0]
		s.nextID++
		id := s.idPrefix + strconv.FormatUint(s.nextID, 10)
		var req sim.Msg
		if acc.store {
			req = s.sys.NewLineWrite(s.port, s.sm, acc.addr, 0xf, id)
		} else {
			req = s.sys.NewLineRead(s.port, s.sm, acc.addr, 0xf, id)
		}
		acc.issued = s.Freq.Cycle(now)
		if s.port.Send(req) == nil {
			s.ready = s.ready[1:]
			s.inflight[id] = acc
			progress = true
		}
	}
	return progress
}

// streamResult is what one stream run measured.
type streamResult struct {
	cycles      uint64
	wall        time.Duration
	events      int
	stats       Stats
	loadLatency float64 // mean, in cycles
}

// runStream pushes the accesses of a stream kernel over n elements through a
// freshly built system with numSMs SMs, CTAs of 256 threads spread round
// robin over the SMs.
func runStream(tb testing.TB, cfg Config, numSMs, elements, maxWarps int) streamResult {
	tb.Helper()
	engine := newEngine()
	var events atomic.Int64
	engine.AcceptHook(eventCounter{&events})
	sys, err := MakeBuilder().
		WithEngine(engine).
		WithFreq(benchFreq).
		WithConfig(cfg).
		WithNumSMs(numSMs).
		Build("GPU.Mem")
	require.NoError(tb, err)

	sms := make([]*streamSM, numSMs)
	for i := range sms {
		sms[i] = newStreamSM(engine, sys, i, maxWarps)
	}
	const warpsPerCTA = 8
	numWarps := elements / 32
	for w := range numWarps {
		sm := sms[(w/warpsPerCTA)%numSMs]
		sm.warps = append(sm.warps, w)
	}

	begin := time.Now()
	for _, sm := range sms {
		sm.TickNow(0)
	}
	require.NoError(tb, engine.Run())
	wall := time.Since(begin)

	var last sim.VTimeInSec
	var loadCycles uint64
	for _, sm := range sms {
		require.Equal(tb, len(sm.warps), sm.done, "SM %d did not finish", sm.sm)
		last = max(last, sm.finishedAt)
		loadCycles += sm.loadLatency
	}
	return streamResult{
		cycles:      benchFreq.Cycle(last),
		wall:        wall,
		events:      int(events.Load()),
		stats:       sys.Stats(),
		loadLatency: float64(loadCycles) / float64(2*numWarps),
	}
}

// BenchmarkStreamTraffic runs the memory traffic of a 1M-thread stream
// kernel (32,768 warps, each 2 line loads and 1 line store: 98,304 line
// requests) from 132 SMs, at most 64 warps resident per SM, through an
// H100-sized system, for the L1 models over the sectored L2 and the
// sectored L1 over akita's L2.
func BenchmarkStreamTraffic(b *testing.B) {
	for _, models := range [][2]string{
		{L1Sectored, L2Sectored}, {L1AkitaWriteAround, L2Sectored}, {L1Sectored, L2AkitaWriteback},
	} {
		b.Run("l1="+models[0]+"/l2="+models[1], func(b *testing.B) {
			cfg := benchConfig()
			cfg.L1Model, cfg.L2Model = models[0], models[1]
			var res streamResult
			for b.Loop() {
				res = runStream(b, cfg, 132, 1<<20, 64)
			}
			b.ReportMetric(float64(res.cycles), "cycles/op")
			b.ReportMetric(float64(res.events), "events/op")
			b.ReportMetric(float64(res.stats.DRAMReadBytes)/float64(res.cycles), "DRAM-B/cycle")
			b.ReportMetric(res.loadLatency, "load-latency-cycles")
		})
	}
}

// BenchmarkBuild measures building the H100-sized system alone (the L2
// directories dominate).
func BenchmarkBuild(b *testing.B) {
	cfg := benchConfig()
	for b.Loop() {
		_, err := MakeBuilder().
			WithEngine(sim.NewSerialEngine()).
			WithFreq(benchFreq).
			WithConfig(cfg).
			WithNumSMs(132).
			Build("GPU.Mem")
		require.NoError(b, err)
	}
}
