package hw

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/warpgraph/warpgraph/kernels"
)

func TestCUDAErrorMessage(t *testing.T) {
	tests := []struct {
		name string
		err  *CUDAError
		want string
	}{
		{
			name: "named with description",
			err:  &CUDAError{Call: "cuLaunchKernel(bfs_topdown)", Code: 701, Name: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", Description: "too many resources requested for launch"},
			want: "cuLaunchKernel(bfs_topdown): CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (701): too many resources requested for launch",
		},
		{
			name: "unknown to the driver",
			err:  &CUDAError{Call: "cuInit", Code: 12345},
			want: "cuInit: CUDA error (12345)",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.err.Error())
		})
	}
}

func TestCUDAErrorStickyAndMemoryFault(t *testing.T) {
	tests := []struct {
		code          int
		sticky, fault bool
	}{
		{CodeIllegalAddress, true, true},
		{CodeMisalignedAddress, true, true},
		{CodeInvalidAddressSpace, true, true},
		{CodeIllegalInstruction, true, false},
		{CodeLaunchFailed, true, false},
		{CodeLaunchOutOfResources, false, false},
		{CodeCooperativeLaunchTooLarge, false, false},
		{1, false, false}, // CUDA_ERROR_INVALID_VALUE
	}
	for _, tc := range tests {
		e := &CUDAError{Code: tc.code}
		assert.Equal(t, tc.sticky, e.Sticky(), "Sticky(%d)", tc.code)
		assert.Equal(t, tc.fault, e.memoryFault(), "memoryFault(%d)", tc.code)
	}
}

func TestLaunchResourceWrapsCUDAError(t *testing.T) {
	cause := &CUDAError{Call: "cuLaunchCooperativeKernel(barrier)", Code: CodeCooperativeLaunchTooLarge, Name: "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE"}
	cfg := kernels.LaunchConfig{Grid: kernels.D1(1057), Block: kernels.D1(256), Cooperative: true}
	err := coResidentError("barrier", cfg, 8, 132, cause)

	var lre *kernels.LaunchResourceError
	require.ErrorAs(t, err, &lre)
	assert.Equal(t, "barrier", lre.Kernel)
	var ce *CUDAError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, CodeCooperativeLaunchTooLarge, ce.Code)
	assert.Contains(t, err.Error(), "grid of 1057 CTAs exceeds the co-resident limit of 1056 CTAs (8 per SM")
	assert.Contains(t, err.Error(), "× 132 SMs")
	assert.Contains(t, err.Error(), "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE (720)")

	plain := launchResource("k", "too big", nil)
	assert.False(t, errors.As(plain, &ce), "no CUDA error behind an up-front check")
	assert.Equal(t, "kernel k cannot be launched: too big", plain.Error())
}

func TestHungKernelError(t *testing.T) {
	hung := &HungKernelError{Kernel: "spin", Waited: 2*time.Second + 300*time.Microsecond, Cause: context.DeadlineExceeded}
	assert.Equal(t, "kernel spin still running after 2s (context deadline exceeded): a running kernel cannot be stopped, so the CUDA context cannot be recovered and the process must exit", hung.Error())
	assert.ErrorIs(t, hung, context.DeadlineExceeded)

	later := &unusableError{ordinal: 0, cause: hung}
	var got *HungKernelError
	require.ErrorAs(t, later, &got, "calls after a hang still expose the hang")
	assert.Contains(t, later.Error(), "CUDA device 0 is unusable after an earlier failure: kernel spin still running")
}

func TestMedian(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	tests := []struct {
		name    string
		samples []time.Duration
		want    time.Duration
	}{
		{"none", nil, 0},
		{"one", ms(7), 7 * time.Millisecond},
		{"odd, unsorted", ms(9, 1, 5), 5 * time.Millisecond},
		{"even takes the mean of the middle two", ms(4, 1, 3, 100), 3500 * time.Microsecond},
		{"outlier does not move it", ms(2, 2, 2, 2, 1000), 2 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := append([]time.Duration(nil), tc.samples...)
			assert.Equal(t, tc.want, median(tc.samples))
			assert.Equal(t, before, tc.samples, "median must not reorder the caller's samples")
		})
	}
}

func TestPollBackoff(t *testing.T) {
	d := pollFirst
	var seen []time.Duration
	for range 8 {
		seen = append(seen, d)
		d = nextPoll(d)
	}
	assert.Equal(t, 50*time.Microsecond, seen[0])
	assert.Equal(t, 100*time.Microsecond, seen[1])
	assert.Equal(t, time.Millisecond, seen[len(seen)-1], "backoff caps at 1 ms")
	assert.Equal(t, 1500*time.Microsecond, eventMilliseconds(1.5))
}

func TestPollUntilSpinsThenSleeps(t *testing.T) {
	// A wait that ends within the spin window is seen by back-to-back
	// polls, not after a 50 µs sleep.
	began := time.Now()
	calls := 0
	require.NoError(t, pollUntil(context.Background(), func() bool {
		calls++
		return time.Since(began) >= 500*time.Microsecond
	}))
	assert.Greater(t, calls, 20, "polled back to back during the spin window")

	// Past the window it sleeps: the 30 ms after it take one poll per
	// sleep (at least 50 µs, backing off to 1 ms), not thousands.
	began, calls = time.Now(), 0
	require.NoError(t, pollUntil(context.Background(), func() bool {
		since := time.Since(began)
		if since > spinWindow+time.Millisecond {
			calls++
		}
		return since >= spinWindow+30*time.Millisecond
	}))
	assert.Less(t, calls, 60, "polls after the spin window")

	// The context ends a wait that never does, whether it ends during the
	// spin or after.
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, pollUntil(cancelled, func() bool { return false }), context.Canceled)
	// began is taken before the deadline is set, so that a descheduled
	// test goroutine cannot make the wait look short.
	began = time.Now()
	short, cancel := context.WithTimeout(context.Background(), spinWindow+20*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, pollUntil(short, func() bool { return false }), context.DeadlineExceeded)
	assert.GreaterOrEqual(t, time.Since(began), spinWindow+20*time.Millisecond)
	// A ready poll wins over an ended context.
	assert.NoError(t, pollUntil(cancelled, func() bool { return true }))
}

func TestAllocTable(t *testing.T) {
	var tab allocTable
	tab.add(0x2000, 256)
	tab.add(0x1000, 1024)
	tab.add(0x3000, 16)

	tests := []struct {
		name    string
		p       kernels.DevPtr
		n       int
		wantErr string
	}{
		{"whole allocation", 0x1000, 1024, ""},
		{"interior slice", 0x1010, 16, ""},
		{"last byte", 0x13ff, 1, ""},
		{"overrun by one", 0x1000, 1025, "1025 bytes at 0x1000 (offset 0) overrun the 1024-byte allocation at 0x1000"},
		{"overrun from inside", 0x20f0, 32, "overrun the 256-byte allocation at 0x2000"},
		{"gap between allocations", 0x1800, 4, "0x1800 is not inside a live allocation"},
		{"below every allocation", 0x10, 4, "0x10 is not inside a live allocation"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tab.check(tc.p, tc.n)
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.wantErr)
		})
	}

	assert.ErrorContains(t, tab.remove(0x1010), "not the start of a live allocation")
	require.NoError(t, tab.remove(0x1000))
	assert.ErrorContains(t, tab.remove(0x1000), "not the start of a live allocation", "double free")
	assert.Error(t, tab.check(0x1000, 1), "freed memory is no longer copyable")
	assert.Equal(t, []kernels.DevPtr{0x2000, 0x3000}, tab.all())
}

// h100ish are limits of the shape the driver reports, for checkLaunch.
var (
	h100ishProps = kernels.Properties{
		SMs: 132, WarpSize: 32, RegistersPerCTA: 65536, SharedMemPerCTA: 48 << 10,
		MaxThreadsPerCTA: 1024, MaxThreadsPerSM: 2048, MaxCTAsPerSM: 32,
	}
	h100ishLimits = deviceLimits{
		maxBlockDim:          [3]int{1024, 1024, 64},
		maxGridDim:           [3]int{1<<31 - 1, 65535, 65535},
		cooperative:          true,
		sharedMemPerCTAOptIn: 227 << 10,
	}
)

func TestCheckLaunch(t *testing.T) {
	light := kernels.KernelAttrs{RegistersPerThread: 16, MaxThreadsPerCTA: 1024}
	heavy := kernels.KernelAttrs{RegistersPerThread: 128, MaxThreadsPerCTA: 512, StaticSharedMem: 40 << 10}
	tests := []struct {
		name     string
		cfg      kernels.LaunchConfig
		attrs    kernels.KernelAttrs
		limits   deviceLimits
		resource bool   // a *kernels.LaunchResourceError is expected
		wantErr  string // substring; empty means no error
	}{
		{name: "fits", cfg: kernels.LaunchConfig{Grid: kernels.D1(1000), Block: kernels.D1(256)}, attrs: light},
		{name: "zero extents count as one", cfg: kernels.LaunchConfig{Grid: kernels.Dim3{X: 4}, Block: kernels.Dim3{X: 32}}, attrs: light},
		{
			name: "block over the device limit", cfg: kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.Dim3{X: 64, Y: 32, Z: 1}}, attrs: light,
			resource: true, wantErr: "a block of 2048 threads exceeds the device limit of 1024 threads per CTA",
		},
		{
			name: "block over one axis", cfg: kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.Dim3{X: 1, Y: 1, Z: 128}}, attrs: light,
			resource: true, wantErr: "block z extent 128 exceeds the device limit of 64",
		},
		{
			name: "grid over one axis", cfg: kernels.LaunchConfig{Grid: kernels.Dim3{X: 1, Y: 70000, Z: 1}, Block: kernels.D1(32)}, attrs: light,
			resource: true, wantErr: "grid y extent 70000 exceeds the device limit of 65535",
		},
		{
			name: "block over the kernel's register-bound limit", cfg: kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(1024)}, attrs: heavy,
			resource: true, wantErr: "exceeds this kernel's limit of 512 threads per CTA (it uses 128 registers per thread",
		},
		{
			name: "static plus dynamic shared memory over the limit", cfg: kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(128), DynamicSharedMem: 16 << 10}, attrs: heavy,
			resource: true, wantErr: "a CTA needs 57344 bytes of shared memory (40960 static + 16384 dynamic), over the limit of 49152 bytes per CTA (the device allows up to 232448 bytes to kernels that opt in",
		},
		{
			name: "cooperative on a device without it", cfg: kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32), Cooperative: true}, attrs: light,
			limits:   deviceLimits{maxBlockDim: h100ishLimits.maxBlockDim, maxGridDim: h100ishLimits.maxGridDim},
			resource: true, wantErr: "does not support cooperative launches",
		},
		{name: "negative dynamic shared memory", cfg: kernels.LaunchConfig{Grid: kernels.D1(1), Block: kernels.D1(32), DynamicSharedMem: -1}, attrs: light, wantErr: "negative dynamic shared memory"},
		{name: "negative extent", cfg: kernels.LaunchConfig{Grid: kernels.D1(-2), Block: kernels.D1(32)}, attrs: light, wantErr: "negative extent"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			limits := tc.limits
			if limits == (deviceLimits{}) {
				limits = h100ishLimits
			}
			err := checkLaunch("k", tc.cfg, h100ishProps, limits, tc.attrs)
			if tc.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tc.wantErr)
			var lre *kernels.LaunchResourceError
			assert.Equal(t, tc.resource, errors.As(err, &lre), "LaunchResourceError?")
		})
	}
}

func TestAllocationUnits(t *testing.T) {
	regs, smem := allocationUnits(9)
	assert.Equal(t, 256, regs)
	assert.Equal(t, 128, smem)
	regs, smem = allocationUnits(7)
	assert.Equal(t, 256, regs)
	assert.Equal(t, 256, smem)
}

func TestCUDAThreadRunsEverythingOnOneOSThread(t *testing.T) {
	th := startCUDAThread()
	var mu sync.Mutex
	tids := map[int]bool{}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 20 {
				require.NoError(t, th.do(func() {
					mu.Lock()
					tids[syscall.Gettid()] = true
					mu.Unlock()
				}))
			}
		})
	}
	wg.Wait()
	assert.Len(t, tids, 1, "all closures ran on one OS thread")

	th.stop()
	th.stop() // idempotent
	ran := false
	assert.ErrorIs(t, th.do(func() { ran = true }), ErrClosed)
	assert.False(t, ran)
}

func TestCUDAThreadHandOffAfterSleeping(t *testing.T) {
	// Calls find the thread spinning, or asleep after its idle window, and
	// the caller spinning, or asleep during a long call; each must run
	// exactly once and return. With one P nothing spins.
	for _, procs := range []int{1, 2, 4} {
		t.Run(fmt.Sprint("GOMAXPROCS=", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			th := startCUDAThread()
			defer th.stop()
			n := 0
			for _, pause := range []time.Duration{0, threadIdleSpin / 4, 2 * threadIdleSpin, 0} {
				time.Sleep(pause)
				require.NoError(t, th.do(func() { n++ }))
			}
			require.NoError(t, th.do(func() { time.Sleep(callerSpin + 5*time.Millisecond); n++ }))
			require.NoError(t, th.do(func() { n++ }))
			assert.Equal(t, 6, n)
		})
	}
}

func TestTestKernelsPTXIsFresh(t *testing.T) {
	checkPTXFresh(t, "testdata/testkernels.cu", testKernelsPTX)
}

// checkPTXFresh compiles a CUDA source of this package as the committed PTX
// beside it was compiled and fails when committed differs. It skips without
// clang++-16, and where the source is not found from the working directory:
// a test binary run elsewhere (on the GPU machine) has the embedded PTX but
// not the source.
func checkPTXFresh(t *testing.T, source, committed string) {
	t.Helper()
	clang, err := exec.LookPath("clang++-16")
	if err != nil {
		t.Skipf("clang++-16 not installed; cannot check the PTX of %s", source)
	}
	if _, err := os.Stat(source); err != nil {
		t.Skipf("%s not found from the working directory: %v", source, err)
	}
	out := filepath.Join(t.TempDir(), "k.ptx")
	cmd := exec.Command(clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_70",
		"-Xclang", "-target-feature", "-Xclang", "+ptx64", "-O3", "-S", source, "-o", out)
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	fresh, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, string(fresh), committed, "the PTX of %s is stale: regenerate it (the command is in the source)", source)
}

func BenchmarkCUDAThreadDo(b *testing.B) {
	th := startCUDAThread()
	defer th.stop()
	n := 0
	for b.Loop() {
		_ = th.do(func() { n++ })
	}
}

func TestJITLineInfoFollowsTheEnvironment(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "1": true, "yes": true} {
		t.Setenv(JITLineInfoEnv, v)
		assert.Equal(t, want, JITLineInfo(), "%s=%q", JITLineInfoEnv, v)
	}
}
