package graph

import (
	"math/bits"
	"sync"
)

// The generators draw their randomness from counter-based splitmix64
// streams: every (seed, purpose, index) triple names its own stream, so a
// chunk of work produces the same numbers whichever goroutine runs it and
// however many run. That is what makes a spec byte-identical on any machine
// and for any GOMAXPROCS.

// Stream purposes keep the streams of different uses apart, so that, say,
// the weights of an R-MAT graph are not correlated with its edges.
const (
	streamRMAT uint64 = iota + 1
	streamER
	streamERTopUp
	streamWeights
	streamPermute
	streamStats
)

const golden64 = 0x9e3779b97f4a7c15

// mix64 is the splitmix64 finalizer: a bijection on 64 bits whose output
// bits each depend on every input bit.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// splitMix is a splitmix64 generator; the zero value is a valid stream, but
// streams come from newStream.
type splitMix struct{ state uint64 }

// newStream returns the stream for one (seed, purpose, index) triple.
func newStream(seed, purpose, index uint64) splitMix {
	return splitMix{state: mix64(mix64(seed^purpose*golden64) + index*golden64)}
}

func (r *splitMix) next() uint64 {
	r.state += golden64
	return mix64(r.state)
}

// below returns a uniform integer in [0, n) by multiply-shift; its bias is
// at most n/2^64, far below anything a graph experiment can notice.
func (r *splitMix) below(n uint64) uint64 {
	hi, _ := bits.Mul64(r.next(), n)
	return hi
}

// streamKey condenses a seed and purpose into the key of a hash-based
// draw (see edgeWeight).
func streamKey(seed, purpose uint64) uint64 { return mix64(mix64(seed^purpose*golden64) + golden64) }

// edgeWeight returns the weight of edge u->v in [lo, lo+span) as a pure
// function of the key and the endpoints. Undirected callers pass the
// endpoints ordered, so both directions of an edge, and every duplicate of
// it, get the same weight regardless of the order edges were produced in.
func edgeWeight(key uint64, u, v uint32, lo uint32, span uint64) uint32 {
	h := mix64(mix64(uint64(u)<<32|uint64(v)) ^ key)
	hi, _ := bits.Mul64(h, span)
	return lo + uint32(hi)
}

// progressReporter serializes progress callbacks from parallel chunks so
// the caller's callback never runs concurrently and sees done grow.
type progressReporter struct {
	mu    sync.Mutex
	fn    func(stage string, done, total int64)
	stage string
	done  int64
	total int64
}

func newProgress(fn func(stage string, done, total int64), stage string, total int64) *progressReporter {
	return &progressReporter{fn: fn, stage: stage, total: total}
}

// add records n more units done and reports them.
func (p *progressReporter) add(n int64) {
	if p == nil || p.fn == nil {
		return
	}
	p.mu.Lock()
	p.done += n
	p.fn(p.stage, p.done, p.total)
	p.mu.Unlock()
}

// report calls fn directly; for stages with a single step.
func report(fn func(stage string, done, total int64), stage string, done, total int64) {
	if fn != nil {
		fn(stage, done, total)
	}
}

// chunkRange returns the half-open range of chunk c when n items are cut
// into chunks of size size.
func chunkRange(c, size, n int) (lo, hi int) {
	lo = c * size
	return lo, min(lo+size, n)
}

// numChunks is the number of size-item chunks covering n items.
func numChunks(n, size int) int { return (n + size - 1) / size }
