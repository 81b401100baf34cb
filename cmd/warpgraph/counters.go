package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// keyCounters are the simulator figures a table shows, in order, with how
// to print them; --json carries every counter.
var keyCounters = []struct {
	name, label string
	format      func(float64) string
}{
	{"warp_instructions", "warp instructions", integer},
	{"thread_instructions", "thread instructions", integer},
	{"ipc", "IPC per SM", decimal},
	{"warp_execution_efficiency", "warp execution efficiency", percent},
	{"achieved_occupancy", "achieved occupancy", percent},
	{"bank_conflicts", "bank conflicts (extra passes)", integer},
	{"shared_atomics", "shared atomics", integer},
	{"max_same_address_serialization_shared", "worst shared same-address serialisation", integer},
	{"global_atomics", "global atomics", integer},
	{"max_same_address_serialization_global", "worst global same-address serialisation", integer},
	{"l1_hit_rate", "L1 hit rate", percent},
	{"l2_hit_rate", "L2 hit rate", percent},
	{"dram_read_bytes", "DRAM bytes read", integer},
	{"dram_write_bytes", "DRAM bytes written", integer},
}

func integer(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
func decimal(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
func percent(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }

const degreePrefix = "bank_conflict_degree_"

// conflictHistogram prints the non-zero bank-conflict degrees as
// "degree:accesses" pairs, or "" when the counters are absent.
func conflictHistogram(c map[string]float64) string {
	type bucket struct{ degree, count int }
	var bs []bucket
	for name, v := range c {
		if d, err := strconv.Atoi(strings.TrimPrefix(name, degreePrefix)); err == nil && strings.HasPrefix(name, degreePrefix) && v > 0 {
			bs = append(bs, bucket{d, int(v)})
		}
	}
	if len(bs) == 0 {
		return ""
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].degree < bs[j].degree })
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = fmt.Sprintf("%d:%d", b.degree, b.count)
	}
	return strings.Join(parts, " ")
}

// addCounterRows appends the key counters that are present.
func addCounterRows(t *table, c map[string]float64) {
	for _, k := range keyCounters {
		if v, ok := c[k.name]; ok {
			t.add(k.label, k.format(v))
		}
	}
	if h := conflictHistogram(c); h != "" {
		t.add("shared accesses by conflict degree", h)
	}
	// The functional mode has only instruction counts; say what is absent.
	if _, timed := c["cycles"]; !timed && len(c) > 0 {
		t.add("note", "functional mode: exact values, no time; use --sim-mode timing for cycles and contention")
	}
}
