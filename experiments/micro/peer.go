package micro

import (
	"context"
	"fmt"
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
