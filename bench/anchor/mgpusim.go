package main

import (
	"bytes"
	"fmt"
	"log"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	akitasim "github.com/sarchlab/akita/v4/sim"
	"github.com/sarchlab/akita/v4/simulation"
	"github.com/sarchlab/akita/v4/tracing"
	"github.com/sarchlab/mgpusim/v4/amd/benchmarks/amdappsdk/vectoradd"
	"github.com/sarchlab/mgpusim/v4/amd/driver"
	"github.com/sarchlab/mgpusim/v4/amd/samples/runner/timingconfig"
	"github.com/sarchlab/mgpusim/v4/amd/sampling"
	"github.com/sarchlab/mgpusim/v4/amd/timing/cu"
	"github.com/sarchlab/mgpusim/v4/amd/timing/wavefront"
)

// mgpusimGPU is the GPU model the vectoradd sample runs on by default
// (runner's -gpu flag defaults to r9nano: GCN3, 64 CUs at 1 GHz).
const mgpusimGPU = "r9nano"

// mgpusimLanes is GCN3's wavefront width.
const mgpusimLanes = 64

// runMGPUSim runs MGPUSim v4's vectoradd benchmark (the workload of its
// amd/samples/vectoradd sample: a[i] = b[i] + c[i], workgroups of 64) on n
// work-items in timing mode on the sample's default GPU, through the same
// library calls the sample's runner makes (simulation, timingconfig, the
// driver), with no web monitor. The CUs' instruction issue is traced to
// count wavefront- and thread-instructions; the driver's kernel-launch
// command is traced for the kernel's simulated and wall time. The result is
// checked by the benchmark's own Verify (every a[i] against b[i] + c[i] on
// the host, exactly).
func runMGPUSim(n int) (result, error) {
	r := result{Simulator: "MGPUSim v4.2.0 " + mgpusimGPU, Lanes: mgpusimLanes, Items: n}
	if n <= 0 || n%mgpusimLanes != 0 {
		// The benchmark sizes its grid as whole workgroups of 64.
		return r, fmt.Errorf("mgpusim: %d work-items: need a positive multiple of %d", n, mgpusimLanes)
	}
	// The simulation's data recorder always opens an SQLite file; keep it
	// out of the working tree.
	dir, err := os.MkdirTemp("", "anchor-mgpusim-")
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)

	setup := time.Now()
	s := simulation.MakeBuilder().
		WithoutMonitoring().
		WithOutputFileName(filepath.Join(dir, "metrics")).
		Build()
	// The runner initialises the wavefront-sampling engine (disabled unless
	// its flag asks) before building a timing platform; the CUs consult it.
	sampling.InitSampledEngine()
	timingconfig.MakeBuilder().
		WithSimulation(s).
		WithNumGPUs(1).
		WithGPUType(mgpusimGPU).
		Build()

	counter := &laneCounter{}
	cus := 0
	for _, c := range s.Components() {
		if u, ok := c.(*cu.ComputeUnit); ok {
			tracing.CollectTrace(u, counter)
			cus++
		}
	}
	if cus == 0 {
		return r, fmt.Errorf("mgpusim: the %s platform has no compute units to trace", mgpusimGPU)
	}
	drv, ok := s.GetComponentByName("Driver").(*driver.Driver)
	if !ok {
		return r, fmt.Errorf("mgpusim: the %s platform has no driver", mgpusimGPU)
	}
	kernel := &kernelTimer{engine: s.GetEngine()}
	tracing.CollectTrace(drv, kernel)

	b := vectoradd.NewBenchmark(drv)
	b.Width = uint32(n)
	b.Height = 1
	b.SelectGPU([]int{1})

	drv.Run()
	r.SetupWall = time.Since(setup)
	start := time.Now()
	b.Run() // host-to-device copies, the kernel, the device-to-host copy
	r.RunWall = time.Since(start)
	verr := verifyVectorAdd(b)
	drv.Terminate()
	s.Terminate()

	r.GroupInstructions = counter.groupInsts
	r.ThreadInstructions = counter.threadInsts
	r.VectorGroupInstructions = counter.vectorInsts
	r.SimTime = kernel.simTime
	r.KernelWall = kernel.wall
	if kernel.launches != 1 {
		return r, fmt.Errorf("mgpusim: traced %d kernel launches, want 1", kernel.launches)
	}
	if verr != nil {
		return r, verr
	}
	r.Validated = "all a[i] == b[i]+c[i] (sample's Verify)"
	return r, nil
}

// verifyVectorAdd runs the benchmark's Verify, which logs each mismatch and
// panics if there was one, and turns that into an error.
func verifyVectorAdd(b *vectoradd.Benchmark) (err error) {
	var buf bytes.Buffer
	out, flags := log.Writer(), log.Flags()
	log.SetOutput(&buf)
	log.SetFlags(0)
	defer func() {
		log.SetOutput(out)
		log.SetFlags(flags)
		if p := recover(); p != nil {
			lines := strings.SplitN(strings.TrimSpace(buf.String()), "\n", 4)
			err = fmt.Errorf("mgpusim: vectoradd: %v: %s", p, strings.Join(lines[:min(len(lines), 3)], "; "))
		}
	}()
	b.Verify()
	if !strings.Contains(buf.String(), "Passed") {
		return fmt.Errorf("mgpusim: vectoradd: Verify did not report success: %q", buf.String())
	}
	return nil
}

// laneCounter is an akita tracer on the compute units: at every instruction
// issue (the CU's "inst" task starts when the scheduler hands a wavefront's
// instruction to an execution unit) it adds one wavefront-instruction and
// the number of lanes set in the wavefront's EXEC mask. Scalar, branch and
// s_waitcnt-style instructions count too, with the mask they issue under,
// as a warp's uniform instructions count on the NVIDIA side.
type laneCounter struct {
	mu          sync.Mutex // the parallel engine would call from several goroutines
	groupInsts  uint64
	vectorInsts uint64
	threadInsts uint64
}

func (t *laneCounter) StartTask(task tracing.Task) {
	if task.Kind != "inst" {
		return
	}
	detail, ok := task.Detail.(map[string]interface{})
	if !ok {
		return
	}
	wf, ok := detail["wf"].(*wavefront.Wavefront)
	if !ok {
		return
	}
	lanes := uint64(bits.OnesCount64(wf.EXEC()))
	t.mu.Lock()
	t.groupInsts++
	t.threadInsts += lanes
	if task.What == "VALU" || task.What == "VMem" || task.What == "LDS" {
		t.vectorInsts++
	}
	t.mu.Unlock()
}

func (t *laneCounter) StepTask(tracing.Task)          {}
func (t *laneCounter) AddMilestone(tracing.Milestone) {}
func (t *laneCounter) EndTask(tracing.Task)           {}

// kernelTimer traces the driver's kernel-launch command (the span the
// sample's runner reports as kernel_time): its simulated duration and the
// wall time the simulation took to get through it.
type kernelTimer struct {
	engine akitasim.TimeTeller

	mu       sync.Mutex
	open     map[string]openLaunch
	launches int
	simTime  time.Duration
	wall     time.Duration
}

type openLaunch struct {
	sim  akitasim.VTimeInSec
	wall time.Time
}

func (t *kernelTimer) StartTask(task tracing.Task) {
	if task.What != "*driver.LaunchKernelCommand" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.open == nil {
		t.open = map[string]openLaunch{}
	}
	t.open[task.ID] = openLaunch{sim: t.engine.CurrentTime(), wall: time.Now()}
}

func (t *kernelTimer) EndTask(task tracing.Task) {
	t.mu.Lock()
	defer t.mu.Unlock()
	o, ok := t.open[task.ID]
	if !ok {
		return
	}
	delete(t.open, task.ID)
	t.launches++
	t.wall += time.Since(o.wall)
	t.simTime += time.Duration(float64(t.engine.CurrentTime()-o.sim) * 1e9)
}

func (t *kernelTimer) StepTask(tracing.Task)          {}
func (t *kernelTimer) AddMilestone(tracing.Milestone) {}
