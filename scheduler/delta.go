package scheduler

import (
	"fmt"

	"github.com/warpgraph/warpgraph/kernels"
)

// Delta-stepping's host side (kernels/sssp.cu): the bound of the current
// bucket lives in the problem's Bucket words; a vertex improved to the
// bound or beyond waits, and when a frontier empties the loop raises the
// bound and runs its scheduler's admission pass (the filter phase, whose
// active() admits the waiting vertices below the bound).

// startBuckets sets the first bucket's bound (untimed: called from Reset);
// a problem without Delta keeps the bound at 0xFFFFFFFF (no buckets).
func (e *Enactment) startBuckets() error {
	b := e.Problem.Buckets
	if b == nil {
		return nil
	}
	e.Buffers.Upload(b.Bound.Ptr(), rawBytes([]uint32{b.Delta, ^uint32(0)}), "bucket bound")
	return e.Buffers.Err()
}

// bucketNote says how the run uses buckets (Prepare adds it to the notes).
func (e *Enactment) bucketNote() {
	if b := e.Problem.Buckets; b != nil && b.Note != "" {
		e.Notes = append(e.Notes, b.Note)
	} else if b != nil {
		e.Notes = append(e.Notes, fmt.Sprintf("delta-stepping: buckets of %d, a vertex improved beyond its bucket waits for the bucket that covers it", b.Delta))
	}
}

// nextBucket is called when a bucket's frontier has emptied: it raises the
// bound by Delta and runs admit (the admission pass, which returns the
// frontier it built); when that frontier is empty it raises the bound past
// the least waiting distance the pass reported and admits again. It
// returns 0 when no vertex waits (the run is over), and the admission
// passes' launches go on the iteration it records.
func (e *Enactment) nextBucket(iteration int, bound *uint32, admit func(it *IterationStats) (int, error)) (int, error) {
	p := e.Problem.Buckets
	if p == nil {
		return 0, nil
	}
	it := IterationStats{Iteration: iteration, Phases: "admit", Direction: "-", Filter: "bucket"}
	next := saturatingAdd(*bound, p.Delta)
	for {
		*bound = next
		e.Buffers.Upload(p.Bound.Ptr(), rawBytes([]uint32{next, ^uint32(0)}), "bucket bound")
		if err := e.Buffers.Err(); err != nil {
			return 0, err
		}
		size, err := admit(&it)
		if err != nil {
			return 0, err
		}
		if size > 0 {
			it.FrontierOut = size
			it.Statistics = map[string]float64{"bucket_bound": float64(next)}
			e.record(it)
			return size, nil
		}
		var words [2]uint32
		if err := kernels.Download(e.Dev, words[:], p.Bound.Ptr()); err != nil {
			return 0, err
		}
		if words[1] == ^uint32(0) { // nothing waits
			e.record(it)
			return 0, nil
		}
		if words[1] < next {
			return 0, fmt.Errorf("delta-stepping: a vertex at distance %d waits below the bound %d: a kernel missed it", words[1], next)
		}
		next = saturatingAdd(words[1]/p.Delta*p.Delta, p.Delta)
	}
}

func saturatingAdd(a, b uint32) uint32 {
	if a > ^uint32(0)-b {
		return ^uint32(0)
	}
	return a + b
}

// bucketStart is the first bucket's bound (0: the problem has no
// buckets).
func (p *Problem) bucketStart() uint32 {
	if p.Buckets == nil {
		return 0
	}
	return p.Buckets.Delta
}
