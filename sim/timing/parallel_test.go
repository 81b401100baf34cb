package timing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParallelEngine runs the suite's launches again on akita's parallel
// engine (run it with -race): the SMs' events take the GPU's lock while
// the memory system's components run concurrently with them. Every test
// keeps its exact figures: in these small launches no two SMs' same-cycle
// sends compete for one resource in a way that their order would change.
func TestParallelEngine(t *testing.T) {
	parallelSuite = true
	defer func() { parallelSuite = false }()
	for _, tc := range []struct {
		name string
		test func(*testing.T)
	}{
		{"SharedAccessTiming", TestSharedAccessTiming},
		{"SharedAtomicModels", TestSharedAtomicModels},
		{"FixedLatencies", TestFixedLatencies},
		{"LoadUseWaitsForMemory", TestLoadUseWaitsForMemory},
		{"SchedulingPolicies", TestSchedulingPolicies},
		{"SchedulersPartitionWarps", TestSchedulersPartitionWarps},
		{"NoWarpStarves", TestNoWarpStarves},
		{"ResidencyQueuesCTAs", TestResidencyQueuesCTAs},
		{"Statistics", TestStatistics},
		{"DeadlockWindow", TestDeadlockWindow},
		{"BarrierDeadlockEndsWhenNothingCanIssue", TestBarrierDeadlockEndsWhenNothingCanIssue},
		{"BarrierArriveDoesNotWait", TestBarrierArriveDoesNotWait},
		{"ContextEndsALaunch", TestContextEndsALaunch},
		{"FaultStopsTheLaunch", TestFaultStopsTheLaunch},
	} {
		t.Run(tc.name, tc.test)
	}
}

// TestParallelBuild checks that the builder accepts the parallel engine and
// that a GPU built with it reuses its engine across launches.
func TestParallelBuild(t *testing.T) {
	parallelSuite = true
	defer func() { parallelSuite = false }()
	body := "\tst.global.u32 [%rd3], %r2;"
	r := newRig(t, kernel("k", body), testSM(), testLimits())
	require.True(t, r.gpu.parallel)
	out := r.alloc(64)
	first := r.mustRun("k", 4, 64, out, uint32(0))
	second := r.mustRun("k", 4, 64, out, uint32(0))
	want := make([]uint32, 64)
	for i := range want {
		want[i] = uint32(i) // every CTA stores its thread ids
	}
	assert.Equal(t, want, r.words(out, 64))
	assert.Equal(t, uint64(4), uint64(first.CTAs))
	assert.Equal(t, first.WarpInstructions, second.WarpInstructions)
}
