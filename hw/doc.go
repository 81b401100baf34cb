// Package hw runs warpgraph's kernels on a real NVIDIA GPU: it implements
// kernels.Device over the CUDA driver API, which it reaches through cgo by
// dlopen("libcuda.so.1") at run time. Building needs no CUDA headers or
// libraries, and a binary built here runs unchanged on a GPU machine; on a
// machine without a driver, Open, ListDevices and DriverVersion return an
// error wrapping ErrNoDriver, so tests skip and the command line reports
// it. It imports only kernels of warpgraph's own; drivers and schedulers
// never import it, they speak kernels.Device.
//
// # Threads and contexts
//
// A Device holds its GPU's primary context, retained and released on an
// OS thread of its own. Its calls run one at a time, each on the caller's
// OS thread, locked for the call, with the context made current there, so
// a Device may be used from any goroutine. Launch is synchronous.
//
// # Several devices
//
// OpenSystem opens several devices as one kernels.System. A GPU listed
// twice gets a second context of its own, so that two contexts on one GPU
// stand in for two GPUs. Between distinct GPUs it enables peer access
// where the driver allows it. CopyPeer queues each copy on its source
// device's stream (cuMemcpyPeerAsync, which works with or without peer
// access), so copies from different devices run at once, after the work a
// destination device has queued, and returns when all have landed.
//
// # Ordering
//
// Launches, memsets and copies of up to 64 KiB are queued, in the order
// they are made, on one non-blocking stream of the Device, so each sees
// every earlier one. Larger copies run synchronously; the stream is
// drained before them, and an upload's DMA has landed before it returns.
//
// # Host overhead
//
// A host-driven loop (launch a level, read back a 4-byte count) pays the
// host's costs on every step, so they are kept to microseconds. Waits for
// a launch or copy busy-poll for a short window before they sleep. Memset
// is queued and returns at once; small copies go through pinned staging
// memory asynchronously on the stream, and an upload returns once staged.
// A launch reads ahead the small read-back that followed the previous
// launch: a kernel of this package (readahead.cu), queued behind the
// launch while the host waits for it, copies those bytes into pinned host
// memory, so the read-back that follows finds them there (see
// Device.CopyFromDevice). The launch_overhead microbenchmark
// (experiments/micro) measures what is left.
//
// # Modules and launches
//
// PTX is JIT-compiled by cuModuleLoadDataEx once per kernels.Module and
// cached; a compilation error carries the JIT's error log. Launch packs the
// arguments with Kernel.PackArgs into C memory, checks the block size,
// shared memory and (for cooperative launches) the co-resident grid limit
// before launching, and reports what the device cannot hold as
// *kernels.LaunchResourceError. Each launch runs on the device's own stream
// between two events; Elapsed is the median of the timed launches' event
// times (LaunchConfig.Warmup untimed launches first).
//
// # Errors
//
// A failed driver call is a *CUDAError naming the call, the CUDA error and
// its code, e.g. "cuLaunchKernel(bfs_topdown):
// CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (701): too many resources requested
// for launch". A bad memory access inside a kernel is a
// *kernels.MemoryFaultError that also unwraps to the *CUDAError. Such
// faults are sticky: the context is lost for the rest of the process, and
// every later call on the Device returns an error saying so.
//
// # Hung kernels and the spin protocol
//
// CUDA cannot stop a running kernel. Launch therefore polls the launch's
// end event (back to back for the first 2 ms, then sleeping, backing off
// from 50 µs to 1 ms) until the kernel finishes or
// the launch's context ends; a kernel still running then is reported as
// *HungKernelError, the Device refuses every later call, and the process
// must exit (which makes the driver destroy the context and the kernel).
// Give every Launch a context with a deadline.
//
// The deadline is the last line of defence. The first is in the kernels:
// every loop that waits on other threads (a software grid barrier, a task
// queue, a lock) is bounded, by this protocol:
//
//   - The kernel takes two extra parameters: a spin budget (uint32, the
//     number of polls any one wait may make) and a pointer to an abort flag
//     (uint32 in global memory) that the driver zeroes before the launch.
//   - Each waiting loop counts its polls. When the count passes the budget,
//     the thread sets the abort flag (atomically, to a non-zero code saying
//     which wait gave up) and leaves the loop.
//   - Every waiting loop also reads the abort flag and leaves as soon as it
//     is set, so once one thread gives up the whole grid drains and the
//     kernel ends, typically within one more budget.
//   - After the launch the driver copies the flag back; a non-zero flag is
//     reported as *kernels.SpinBudgetError (the results are invalid).
//
// A wrong grid (say, a cooperative barrier across more CTAs than can be
// co-resident) thus ends as a SpinBudgetError that the simulator can
// reproduce, rather than a hung GPU; the budget should be sized so that
// the kernel aborts well within the host's deadline.
package hw
