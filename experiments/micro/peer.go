package micro

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/warpgraph/warpgraph/kernels"
)

// PeerCopySizes are peer_copy's transfer sizes by default: 4 bytes (the
// latency of a copy) and 64 MiB (the link's bandwidth).
var PeerCopySizes = []int{4, 1 << 20, 64 << 20}

// PeerCopy measures copies between the devices of a system, for every
// ordered pair: the time of one copy of each size (the median of repeat
// after warmup on hardware; the simulator's link model once) and its
// bandwidth, then every pair's largest copy at once. Each copy carries a
// pattern that is read back and checked.
func PeerCopy(ctx context.Context, sys kernels.System, sizes []int, warmup, repeat int, simulated bool) (*Table, error) {
	devs := sys.Devices()
	if len(devs) < 2 {
		return nil, settingError("peer_copy needs two devices or more (--gpus 2); this system has %d", len(devs))
	}
	if simulated {
		warmup, repeat = 0, 1
	}
	repeat = max(repeat, 1)
	largest := 0
	for _, s := range sizes {
		if s <= 0 {
			return nil, settingError("peer_copy size %d: give positive byte counts", s)
		}
		largest = max(largest, s)
	}
	// Every device holds one source and one destination buffer per peer.
	src := make([][]kernels.DevPtr, len(devs))
	dst := make([][]kernels.DevPtr, len(devs))
	allocs := make([]*kernels.Allocations, len(devs))
	defer func() {
		for _, a := range allocs {
			if a != nil {
				_ = a.FreeAll()
			}
		}
	}()
	err := sys.Parallel(func(i int, d kernels.Device) error {
		allocs[i] = kernels.NewAllocations(d)
		src[i], dst[i] = make([]kernels.DevPtr, len(devs)), make([]kernels.DevPtr, len(devs))
		for j := range devs {
			if j == i {
				continue
			}
			pattern := make([]byte, largest)
			for k := range pattern {
				pattern[k] = byte(i*31 + j*7 + k%251)
			}
			var err error
			if src[i][j], err = kernels.Copy(allocs[i], pattern); err != nil {
				return err
			}
			if dst[i][j], err = kernels.Slice[byte](allocs[i], largest); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	t := &Table{Name: "peer_copy", Device: fmt.Sprintf("%d × %s; link: %s", len(devs), devs[0].Properties().Name, sys.Link()),
		Columns: []string{"from", "to", "bytes", "time_us", "GB_per_s", "valid"}}
	timeBatch := func(copies []kernels.PeerCopy) (time.Duration, error) {
		samples := make([]time.Duration, 0, repeat)
		for r := 0; r < warmup+repeat; r++ {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			start := sys.Clock()
			if err := sys.CopyPeer(copies); err != nil {
				return 0, err
			}
			if r >= warmup {
				samples = append(samples, sys.Clock()-start)
			}
		}
		return kernels.Median(samples), nil
	}
	check := func(c kernels.PeerCopy) (bool, error) {
		got := make([]byte, c.Bytes)
		if err := devs[c.To].CopyFromDevice(got, c.Dst); err != nil {
			return false, err
		}
		for k, b := range got {
			if b != byte(c.From*31+c.To*7+k%251) {
				return false, nil
			}
		}
		return true, nil
	}
	row := func(from, to string, bytes int, d time.Duration, ok bool) {
		gbps := 0.0
		if d > 0 {
			gbps = float64(bytes) / float64(d.Nanoseconds())
		}
		t.add(from, to, bytes, d, gbps, ok)
	}
	for _, size := range sizes {
		for i := range devs {
			for j := range devs {
				if i == j {
					continue
				}
				c := kernels.PeerCopy{From: i, To: j, Src: src[i][j], Dst: dst[j][i], Bytes: size}
				d, err := timeBatch([]kernels.PeerCopy{c})
				if err != nil {
					return nil, err
				}
				ok, err := check(c)
				if err != nil {
					return nil, err
				}
				row(fmt.Sprint(i), fmt.Sprint(j), size, d, ok)
			}
		}
	}
	var all []kernels.PeerCopy
	for i := range devs {
		for j := range devs {
			if i != j {
				all = append(all, kernels.PeerCopy{From: i, To: j, Src: src[i][j], Dst: dst[j][i], Bytes: largest})
			}
		}
	}
	d, err := timeBatch(all)
	if err != nil {
		return nil, err
	}
	ok := true
	for _, c := range all {
		good, err := check(c)
		if err != nil {
			return nil, err
		}
		ok = ok && good
	}
	row("every", "every other", largest*len(all), d, ok)
	t.Notes = []string{
		"One copy of each size per ordered pair, alone, then every pair's largest copy at once (the last row: total bytes over the batch's time).",
		"Hardware: wall time around the copy and its wait (the host's call included), median of the timed repetitions; simulator: the link model's time (sim/configs/README.md, system:).",
		"valid: the destination holds the source's pattern.",
	}
	return t, nil
}

// peerLatencyFootprint is peer_latency's chain: 2 MB, one word per line,
// which every L2 holds and the strong loads read from there.
const peerLatencyFootprint = 2 << 20

// PeerLatency measures what a kernel's access to another device's memory
// costs, for every ordered pair of devices and on each device's own memory
// beside it: one thread of device i chases a chain in device j's memory
// with strong loads (load_latency: answered by j's L2, as a polled flag or
// a queue's words are) and updates a word there with a chain of dependent
// atomicAdds (sync_latency), in a co-launch (kernels.PeerSystem) whose
// other devices do a step of each on their own memory. The extra cycles
// of a peer access over a local one, halved, are the link's latency each
// way as the simulator's system.link.access_latency_ns models it.
// Cycles are the probing SM's (%clock64), the median of repeat after
// warmup co-launches on hardware; ns convert them at the device's clock.
// Every walk ends where the host's does and every word holds its count.
func PeerLatency(ctx context.Context, sys kernels.System, warmup, repeat int, simulated bool) (*Table, error) {
	ps, ok := sys.(kernels.PeerSystem)
	devs := sys.Devices()
	switch {
	case len(devs) < 2:
		return nil, settingError("peer_latency needs two devices or more (--gpus 2); this system has %d", len(devs))
	case !ok:
		return nil, settingError("peer_latency needs a system whose kernels reach each other's memory (co-launches)")
	}
	if simulated {
		warmup, repeat = 0, 1
	}
	chainK, err := kernels.Lookup("load_latency")
	if err != nil {
		return nil, err
	}
	atomK, err := kernels.Lookup("sync_latency")
	if err != nil {
		return nil, err
	}
	lines := peerLatencyFootprint / loadLatencyLine
	chain, next := loadLatencyChain(lines)
	steps := lines
	want := uint32(0)
	for range 2 * steps {
		want = next[want]
	}
	// Every device holds a chain, a word pair and an out pair.
	allocs := make([]*kernels.Allocations, len(devs))
	chains, words, outs := make([]kernels.DevPtr, len(devs)), make([]kernels.DevPtr, len(devs)), make([]kernels.DevPtr, len(devs))
	defer func() {
		for _, a := range allocs {
			if a != nil {
				_ = a.FreeAll()
			}
		}
	}()
	err = sys.Parallel(func(i int, d kernels.Device) error {
		allocs[i] = kernels.NewAllocations(d)
		var err error
		if chains[i], err = kernels.Copy(allocs[i], chain); err != nil {
			return err
		}
		if words[i], err = kernels.Slice[uint32](allocs[i], 2); err != nil {
			return err
		}
		outs[i], err = kernels.Slice[uint64](allocs[i], 2)
		return err
	})
	if err != nil {
		return nil, err
	}
	probe := func(i, j int, atomic bool) (uint64, error) {
		var samples []uint64
		for r := range warmup + max(repeat, 1) {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			args := make([][]any, len(devs))
			k := chainK
			for d := range devs {
				switch {
				case atomic && d == i:
					args[d] = []any{words[j], uint32(syncSteps), uint32(0), outs[d]}
				case atomic:
					args[d] = []any{words[d], uint32(1), uint32(1), outs[d]}
				case d == i:
					args[d] = []any{chains[j], uint32(steps), uint32(1), outs[d]}
				default:
					args[d] = []any{chains[d], uint32(0), uint32(1), outs[d]}
				}
			}
			if atomic {
				k = atomK
				if err := sys.Parallel(func(d int, dev kernels.Device) error {
					return kernels.Upload(dev, words[d], []uint32{0, 0})
				}); err != nil {
					return 0, err
				}
			}
			if _, err := ps.CoLaunch(ctx, k, oneWarp, args); err != nil {
				return 0, err
			}
			got := make([]uint64, 2)
			if err := kernels.Download(devs[i], got, outs[i]); err != nil {
				return 0, err
			}
			if atomic {
				w := make([]uint32, 1)
				if err := kernels.Download(devs[j], w, words[j]); err != nil {
					return 0, err
				}
				if w[0] != syncSteps+1 {
					return 0, fmt.Errorf("peer_latency: device %d's atomics left device %d's word at %d, want %d", i, j, w[0], syncSteps+1)
				}
			} else if wantWord := uint64(want) * loadLatencyLine / 4; got[1] != wantWord {
				return 0, fmt.Errorf("peer_latency: device %d's walk in device %d's memory reached word %d, want %d", i, j, got[1], wantWord)
			}
			if r >= warmup {
				samples = append(samples, got[0])
			}
		}
		slices.Sort(samples)
		return samples[len(samples)/2], nil
	}
	mhz := float64(devs[0].Properties().ClockKHz) / 1000
	t := &Table{Name: "peer_latency", Device: fmt.Sprintf("%d × %s; link: %s", len(devs), devs[0].Properties().Name, sys.Link()),
		Columns: []string{"from", "to", "access", "cycles", "ns", "extra each way (ns)", "validated"}}
	for _, atomic := range []bool{false, true} {
		what, per := "strong load (ld.volatile.global)", steps
		if atomic {
			what, per = "atomic round trip (atomicAdd)", syncSteps
		}
		local := make([]float64, len(devs))
		for i := range devs {
			c, err := probe(i, i, atomic)
			if err != nil {
				return nil, err
			}
			local[i] = float64(c) / float64(per)
			t.add(fmt.Sprint(i), fmt.Sprint(i), what, local[i], local[i]/mhz*1000, "–", "yes")
		}
		for i := range devs {
			for j := range devs {
				if i == j {
					continue
				}
				c, err := probe(i, j, atomic)
				if err != nil {
					return nil, err
				}
				cyc := float64(c) / float64(per)
				t.add(fmt.Sprint(i), fmt.Sprint(j), what, cyc, cyc/mhz*1000, (cyc-local[i])/2/mhz*1000, "yes")
			}
		}
	}
	t.Notes = []string{
		"One thread of device 'from' chases a 2 MB chain (one word per line, strong loads: the L2's answer) or chains atomicAdds on one word, in device 'to''s memory, in a co-launch whose other devices do one step on their own memory; cycles per access by %clock64.",
		"extra each way: half the difference from the same access to 'from''s own memory, at the device's clock: what the simulator's system.link.access_latency_ns stands for.",
		"Hardware: median of the timed co-launches after the warm-up ones; simulator: one co-launch, in its co-launch timing model.",
	}
	return t, nil
}
