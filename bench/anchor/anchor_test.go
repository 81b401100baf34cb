package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Both simulators run the vector add at a small size in timing mode, each
// validates its output, and each reports instructions, simulated time and
// wall time.
func TestBothSimulatorsRunAndValidate(t *testing.T) {
	const n = 1024
	rows, err := measure(context.Background(), n, options{block: 64, repeat: 1, timeout: 5 * time.Minute})
	require.NoError(t, err)
	require.Len(t, rows, 2)
	tests := []struct {
		name      string
		r         result
		simulator string
		lanes     int
	}{
		{"mgpusim", rows[0], "MGPUSim v4.2.0 r9nano", 64},
		{"warpgraph", rows[1], "warpgraph sim h100", 32},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r
			assert.Equal(t, tc.simulator, r.Simulator)
			assert.Equal(t, tc.lanes, r.Lanes)
			assert.Equal(t, n, r.Items)
			assert.NotEmpty(t, r.Validated, "the output was checked")
			assert.Positive(t, r.GroupInstructions)
			assert.Positive(t, r.ThreadInstructions)
			// Every work-item executes at least its two loads, add and store;
			// no instruction has more active lanes than its group has.
			assert.GreaterOrEqual(t, r.ThreadInstructions, uint64(4*n))
			assert.LessOrEqual(t, r.ThreadInstructions, r.GroupInstructions*uint64(r.Lanes))
			assert.Positive(t, r.SimTime)
			assert.Positive(t, r.KernelWall)
			assert.GreaterOrEqual(t, r.RunWall, r.KernelWall)
			assert.Positive(t, r.Rate())
		})
	}
	var out bytes.Buffer
	writeTable(&out, rows)
	assert.Contains(t, out.String(), "1024 items: warpgraph/MGPUSim thread-instructions per wall second = ")
	assert.NotContains(t, out.String(), "NOT VALIDATED")
}

func TestRejectsSizesOutsideWholeWorkgroups(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"not a multiple of 64", []string{"--sizes", "1000"}},
		{"zero", []string{"--sizes", "0"}},
		{"not a number", []string{"--sizes", "64k"}},
		{"no runs", []string{"--sizes", "64", "--repeat", "0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			assert.Error(t, run(tc.args, &out))
			assert.Empty(t, out.String(), "nothing runs")
		})
	}
}
