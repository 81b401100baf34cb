// launch_overhead.cu — a kernel that does next to nothing, so that a
// host-driven loop of launches measures the host's and the driver's cost
// per launch rather than the kernel's.
#include "warpgraph.h"

// launch_increment adds 1 to *counter from thread 0 of CTA 0 and does
// nothing else; with a null counter it does nothing at all (an empty
// launch). The count makes a dependent launch checkable: a host loop that
// launches, then reads the counter back, sees each launch complete.
//
// Parameters:
//   counter  one uint32 (read and written), or null. Set it before the
//            first launch (the driver zeroes it).
// Launch: any grid and block; the launch_overhead microbenchmark uses one
// CTA of 32 threads. Only thread 0 of CTA 0 touches memory.
// Driver checks: after k launches from a counter of c, *counter == c + k
// (a plain increment: launches must not overlap, which a synchronous
// Launch guarantees).
// Not idempotent: launch it once per timed launch (Repeat 1, no Warmup),
// and count every launch.
extern "C" __global__ void launch_increment(uint32_t* counter) {
  if (counter != nullptr && threadIdx.x == 0 && blockIdx.x == 0)
    *counter += 1;
}
