package sim

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/warpgraph/warpgraph/kernels"
)

func TestConfigs(t *testing.T) {
	assert.Equal(t, []string{"gtx780ti", "gtx780ti-x2-pcie", "gtx780ti-x4-pcie", "h100", "h100-x8-nvlink", "h200", "h200-x8-nvlink", "tiny", "tiny-x4", "v100"}, ConfigNames())
	for _, name := range ConfigNames() {
		t.Run(name, func(t *testing.T) {
			c, err := ConfigByName(name)
			require.NoError(t, err)
			assert.Equal(t, name, c.Name)
			require.NoError(t, c.Validate())
			require.NoError(t, c.SM.Validate())
			require.NoError(t, c.Memory.Validate())
			d, err := New(c)
			require.NoError(t, err)
			p := d.Properties()
			assert.Equal(t, c.SMs, p.SMs)
			assert.Equal(t, 32, p.WarpSize)
			assert.Equal(t, c.ClockMHz*1000, p.ClockKHz)
			assert.Equal(t, c.ComputeCapability, p.ComputeCapability)
			require.NoError(t, d.Close())
		})
	}
	h, err := ConfigByName("h100")
	require.NoError(t, err)
	assert.Equal(t, 132, h.SMs)
	assert.Equal(t, 65536, h.RegistersPerSM)
	assert.Equal(t, 228<<10, h.SharedMemPerSM)
	assert.Equal(t, 48<<10, h.SharedMemPerCTA)
	assert.Equal(t, 227<<10, h.SharedMemPerCTAOptIn)
	k, err := ConfigByName("gtx780ti")
	require.NoError(t, err)
	assert.Equal(t, [2]int{3, 5}, k.ComputeCapability)
	assert.Equal(t, 15, k.SMs)
	assert.Equal(t, 16, k.MaxCTAsPerSM)

	_, err = ConfigByName("a100")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "gtx780ti, gtx780ti-x2-pcie, gtx780ti-x4-pcie, h100, h100-x8-nvlink, h200, h200-x8-nvlink, tiny, tiny-x4, v100")

	bad := h
	bad.SMs, bad.WarpSize = 0, 64
	err = bad.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SMs must be positive")
	assert.Contains(t, err.Error(), "WarpSize must be 32")
	_, err = New(bad)
	assert.Error(t, err)
}

func TestMemoryOperations(t *testing.T) {
	d := tinyDevice(t)
	vals := []uint32{1, 2, 3, 4, 5}
	p := upload(t, d, vals)
	assert.NotZero(t, p, "no allocation is at address 0")
	assert.Equal(t, vals, download[uint32](t, d, p, 5))
	require.NoError(t, d.Memset(p+4, 0xFF, 8))
	assert.Equal(t, []uint32{1, 0xFFFFFFFF, 0xFFFFFFFF, 4, 5}, download[uint32](t, d, p, 5))
	assert.Error(t, d.CopyToDevice(p+250, make([]byte, 10)), "past the allocation")
	assert.Error(t, d.CopyFromDevice(make([]byte, 4), 0), "null")
	assert.Error(t, d.Memset(12345, 0, 4))
	require.NoError(t, d.Free(p))
	assert.Error(t, d.Free(p), "double free")

	require.NoError(t, d.Close())
	_, err := d.Alloc(4)
	assert.Error(t, err)
	assert.Error(t, d.Load(lookup(t, "stream")))
	_, err = d.Launch(context.Background(), lookup(t, "stream"), kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}, kernels.DevPtr(0), kernels.DevPtr(0), kernels.DevPtr(0), uint32(0))
	assert.Error(t, err)
}

func TestAttributesAndOccupancy(t *testing.T) {
	d := tinyDevice(t)
	for _, k := range kernels.Kernels() {
		require.NoError(t, d.Load(k))
		a, err := d.Attributes(k)
		require.NoError(t, err)
		assert.Positive(t, a.RegistersPerThread, k.Name)
		assert.LessOrEqual(t, a.RegistersPerThread, 255, k.Name)
		assert.Positive(t, a.MaxThreadsPerCTA, k.Name)
		t.Logf("%-26s %3d registers/thread, %5d B static shared, %d B local, max %d threads/CTA",
			k.Name, a.RegistersPerThread, a.StaticSharedMem, a.LocalMemPerThread, a.MaxThreadsPerCTA)
	}
	a, err := d.Attributes(lookup(t, "atomic_contention_shared"))
	require.NoError(t, err)
	assert.Equal(t, 4096, a.StaticSharedMem)
	a, err = d.Attributes(lookup(t, "bank_stride_padded"))
	require.NoError(t, err)
	assert.Equal(t, 4*(1024+32), a.StaticSharedMem)

	stream := lookup(t, "stream")
	tests := []struct {
		name         string
		k            *kernels.Kernel
		block, dyn   int
		want         int
		limitedByMem bool
	}{
		{"thread limit", stream, 256, 0, 4, false},
		{"CTA slots", stream, 32, 0, 4, false},
		{"whole SM", stream, 1024, 0, 1, false},
		{"shared memory", lookup(t, "atomic_contention_shared"), 64, 12 << 10, 2, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, err := d.Occupancy(tc.k, tc.block, tc.dyn)
			require.NoError(t, err)
			assert.Equal(t, tc.want, n)
		})
	}
	_, err = d.Occupancy(stream, 2048, 0)
	var le *kernels.LaunchResourceError
	assert.ErrorAs(t, err, &le)

	h, err := ConfigByName("h100")
	require.NoError(t, err)
	hd, err := New(h)
	require.NoError(t, err)
	n, err := hd.Occupancy(stream, 256, 0)
	require.NoError(t, err)
	assert.Equal(t, 8, n, "2048 threads per SM")
}

func TestLaunchResourceErrors(t *testing.T) {
	d := tinyDevice(t)
	stream := lookup(t, "stream")
	buf := zeros[float32](t, d, 1024)
	args := []any{buf, buf, buf, uint32(0)}
	tests := []struct {
		name string
		cfg  kernels.LaunchConfig
		want string
	}{
		{"block over 1024 threads", kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(2048)}, "exceeds"},
		{"block z over 64", kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.Dim3{X: 1, Y: 1, Z: 65}}, "per-dimension"},
		{"grid y over 65535", kernels.LaunchConfig{Grid: kernels.Dim3{X: 1, Y: 70000, Z: 1}, Block: kernels.D1(32)}, "grid"},
		{"shared memory over the limit", kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32), DynamicSharedMem: 40 << 10}, "shared memory"},
		{"cooperative grid over the co-resident limit", kernels.LaunchConfig{Grid: kernels.D1(9), Block: kernels.D1(256), Cooperative: true}, "co-resident"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := d.Launch(context.Background(), stream, tc.cfg, args...)
			var le *kernels.LaunchResourceError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, "stream", le.Kernel)
			assert.Contains(t, le.Detail, tc.want)
		})
	}
	_, err := d.Launch(context.Background(), stream, kernels.LaunchConfig{Grid: kernels.D1(8), Block: kernels.D1(256), Cooperative: true}, args...)
	assert.NoError(t, err, "a cooperative grid at the limit runs")
	_, err = d.Launch(context.Background(), stream, kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}, buf, buf)
	assert.ErrorContains(t, err, "takes 4 arguments")
}

func TestLaunchFaultNamesKernelThreadAndSource(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		stream := lookup(t, "stream")
		a := zeros[float32](t, d, 64)
		_, err := d.Launch(context.Background(), stream, kernels.LaunchConfig{Grid: kernels.D1(2), Block: kernels.D1(32)}, a, a, kernels.DevPtr(64), uint32(64))
		var f *kernels.MemoryFaultError
		require.ErrorAs(t, err, &f)
		assert.Equal(t, "stream", f.Kernel)
		assert.Contains(t, f.Detail, "null pointer")
		if d.Mode() == ModeFunctional {
			assert.Contains(t, f.Detail, "CTA (0,0,0) thread (0,0,0)")
		} else {
			// Both CTAs store in the same cycle on their SMs; either may
			// fault first.
			assert.Regexp(t, `CTA \([01],0,0\) thread \(0,0,0\)`, f.Detail)
		}
		assert.Contains(t, f.Detail, "kernels/stream.cu:20")
		assert.Contains(t, f.Detail, "st.global.f32")
		t.Log(err)
	})
}

func TestLaunchHonoursContext(t *testing.T) {
	for _, m := range modes {
		t.Run(string(m), func(t *testing.T) {
			// A huge quiet window (functional) or deadlock window (timing)
			// turns the hang detection off: only ctx ends the spinning
			// global barrier.
			d := tinyDevice(t, WithMode(m), WithQuietWindow(1<<62), WithDeadlockWindow(1<<40))
			k := lookup(t, "global_barrier")
			perSM, err := d.Occupancy(k, 64, 0)
			require.NoError(t, err)
			start := time.Now()
			r := runGlobalBarrier(t, d, perSM*2+1, 64, 1, 0, 200*time.Millisecond, false)
			require.Error(t, r.err)
			assert.True(t, errors.Is(r.err, context.DeadlineExceeded), "%v", r.err)
			assert.Contains(t, r.err.Error(), "global_barrier")
			assert.Less(t, time.Since(start), 5*time.Second)

			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			stream := lookup(t, "stream")
			buf := zeros[float32](t, d, 32)
			_, err = d.Launch(ctx, stream, kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32)}, buf, buf, buf, uint32(32))
			assert.ErrorIs(t, err, context.Canceled)
		})
	}
}

func TestLaunchCountersAndModuleCache(t *testing.T) {
	forModes(t, func(t *testing.T, d *Device) {
		stream := lookup(t, "stream")
		buf := zeros[float32](t, d, 4096)
		st := launch(t, d, stream, 16, 256, buf, buf, buf, uint32(4096))
		assert.Equal(t, 16.0, st.Counters["ctas"])
		assert.Equal(t, 8.0, st.Counters["max_resident_ctas"], "4 per SM on 2 SMs")
		assert.Equal(t, st.Counters["warp_instructions"]*32, st.Counters["thread_instructions"], "every warp is full and converged")
		if d.Mode() == ModeFunctional {
			assert.Zero(t, st.Cycles)
			assert.Zero(t, st.Elapsed)
			assert.Nil(t, d.LastStats())
		} else {
			assert.Positive(t, st.Cycles)
			overhead := time.Duration(d.Config().Host.KernelOverheadNs)
			require.Positive(t, overhead)
			assert.Equal(t, overhead+time.Duration(st.Cycles)*time.Microsecond/time.Duration(d.Config().ClockMHz), st.Elapsed,
				"Elapsed is the event time: host.kernel_overhead_ns plus the cycles")
			require.NotNil(t, d.LastStats())
			assert.Equal(t, st.Cycles, d.LastStats().Cycles)
			assert.Equal(t, 1.0, st.Counters["warp_execution_efficiency"])
		}
		before := len(d.mods)
		launch(t, d, stream, 1, 32, buf, buf, buf, uint32(32))
		assert.Equal(t, before, len(d.mods), "the module is parsed once")
	})
}

func TestModes(t *testing.T) {
	for _, s := range []string{"timing", "functional"} {
		m, err := ParseMode(s)
		require.NoError(t, err)
		assert.Equal(t, Mode(s), m)
	}
	_, err := ParseMode("cycle")
	assert.ErrorContains(t, err, "unknown mode")
	d := tinyDevice(t)
	assert.Equal(t, ModeTiming, d.Mode(), "timing is the default")
	_, err = New(Config{}, WithMode("bogus"))
	assert.Error(t, err)
	c, err := ConfigByName("tiny")
	require.NoError(t, err)
	c.SM.SchedulingPolicy = "fifo"
	_, err = New(c)
	assert.ErrorContains(t, err, "scheduling_policy", "timing mode validates the SM configuration")
	_, err = New(c, WithMode(ModeFunctional))
	assert.NoError(t, err, "functional mode does not need it")
}

// TestModulesParsedOncePerProcess checks that Devices share a module's
// parse when its load-time passes are the same, each lowering it and
// placing its variables itself; that hoisting loads gives a parse of its
// own, which functional mode (where the passes do not apply) does not use;
// and that the parse of a module made at run time goes with the module.
func TestModulesParsedOncePerProcess(t *testing.T) {
	k := lookup(t, "bfs_bsp_base_push")
	a, b := tinyDevice(t), timingDevice(t, nil)
	hoisted := timingDevice(t, func(c *Config) { c.SM.HoistLoads = true })
	cfg, err := ConfigByName("tiny")
	require.NoError(t, err)
	cfg.SM.HoistLoads = true
	functional, err := New(cfg, WithMode(ModeFunctional))
	require.NoError(t, err)
	t.Cleanup(func() { _ = functional.Close() })
	for _, d := range []*Device{a, b, hoisted, functional} {
		require.NoError(t, d.Load(k))
	}
	shared := a.mods[k.Module].PTX
	assert.Same(t, shared, b.mods[k.Module].PTX, "two devices share the parse")
	assert.Same(t, shared, functional.mods[k.Module].PTX, "functional mode hoists nothing")
	assert.NotSame(t, shared, hoisted.mods[k.Module].PTX, "hoisting reorders a parse of its own")
	assert.NotSame(t, a.mods[k.Module], b.mods[k.Module], "each device lowers the module itself")

	var transient weak.Pointer[kernels.Module]
	held := func() (n int) { // the cache's entries for the transient module
		parsedModules.Range(func(k, _ any) bool {
			if k.(parseKey).mod == transient {
				n++
			}
			return true
		})
		return n
	}
	func() {
		m, err := kernels.ParseModule("transient", []byte(badModule))
		require.NoError(t, err)
		transient = weak.Make(m)
		d := tinyDevice(t)
		require.Error(t, d.Load(m.Kernels[0]), "the module parses, then its check fails")
	}()
	assert.Equal(t, 1, held())
	for i := 0; i < 500 && held() > 0; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	assert.Zero(t, held(), "the parse of a collected module is dropped")
	assert.Nil(t, transient.Value())
}

// WithBoundsCheck faults an access past the bytes a buffer asked for, here
// a store into the padding that rounds a 240-byte buffer up to 256, which
// a run without it (like the GPU) lets pass; in-bounds runs are unchanged.
func TestBoundsCheckCatchesAnOverrunIntoPadding(t *testing.T) {
	for _, m := range modes {
		t.Run(string(m), func(t *testing.T) {
			run := func(d *Device, n uint32) (kernels.LaunchStats, error) {
				stream := lookup(t, "stream")
				a, b := zeros[float32](t, d, 64), zeros[float32](t, d, 64)
				c := zeros[float32](t, d, 60)
				return d.Launch(context.Background(), stream, kernels.LaunchConfig{Grid: kernels.D1(2), Block: kernels.D1(32)}, a, b, c, n)
			}
			_, err := run(tinyDevice(t, WithMode(m)), 64)
			require.NoError(t, err, "without the check the overrun passes")
			if m == ModeTiming { // the window engine's split accesses too
				_, err = run(tinyDevice(t, WithMode(m), WithThreads(2), WithBoundsCheck()), 64)
				assert.ErrorContains(t, err, "address past the end of the 240-byte allocation")
			}

			_, err = run(tinyDevice(t, WithMode(m), WithBoundsCheck()), 64)
			var f *kernels.MemoryFaultError
			require.ErrorAs(t, err, &f)
			assert.Equal(t, "stream", f.Kernel)
			assert.Contains(t, f.Detail, "address past the end of the 240-byte allocation")
			assert.Contains(t, f.Detail, "st.global.f32")
			assert.Contains(t, f.Detail, "CTA (1,0,0) thread (28,0,0)", "the first lane past c[59]")

			checked, err := run(tinyDevice(t, WithMode(m), WithBoundsCheck()), 60)
			require.NoError(t, err)
			unchecked, err := run(tinyDevice(t, WithMode(m)), 60)
			require.NoError(t, err)
			assert.Equal(t, unchecked.Cycles, checked.Cycles, "the check changes no figure")
		})
	}
}
