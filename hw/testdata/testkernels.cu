// Kernels for package hw's hardware tests. Regenerate testkernels.ptx with
//   clang++-16 -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_70 \
//     -Xclang -target-feature -Xclang +ptx64 -O3 -S testkernels.cu -o testkernels.ptx
// (TestTestKernelsPTXIsFresh checks it when clang++-16 is installed.)
#define __global__ __attribute__((global))

extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x();
  if (i < n) c[i] = a[i] + b[i];
}

// spin polls *flag until it is non-zero or budget_ns of %globaltimer have
// passed, then writes 1 to *aborted if the budget ran out and 0 otherwise:
// the bounded-spin protocol of package hw's documentation, in miniature.
// Only thread 0 of CTA 0 spins; the others return at once.
extern "C" __global__ void spin(const volatile unsigned* flag, unsigned long long budget_ns, unsigned* aborted) {
  if (__nvvm_read_ptx_sreg_ctaid_x() != 0 || __nvvm_read_ptx_sreg_tid_x() != 0) return;
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (;;) {
    if (*flag != 0) { *aborted = 0; return; }
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > budget_ns) { *aborted = 1; return; }
  }
}

// store_at writes v to *p; the memory-fault test passes an unmapped address.
extern "C" __global__ void store_at(unsigned* p, unsigned v) { *p = v; }
