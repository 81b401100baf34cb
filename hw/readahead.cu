// Package hw's own kernel: the read-ahead of a launch's read-back (see
// Device.CopyFromDevice). Regenerate readahead.ptx with
//   clang++-16 -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_70 \
//     -Xclang -target-feature -Xclang +ptx64 -O3 -S readahead.cu -o readahead.ptx
// (TestReadAheadPTXIsFresh checks it when clang++-16 is installed.)
#define __global__ __attribute__((global))

// wg_read_ahead copies n bytes from src (device memory) to dst (pinned host
// memory), then sets *done to seq: a host that sees seq in *done sees the
// bytes. One CTA; each thread makes its own bytes visible to the host
// before the CTA's barrier, after which thread 0 writes the flag.
extern "C" __global__ void wg_read_ahead(const unsigned char* src, unsigned char* dst, unsigned n,
                                         unsigned seq, volatile unsigned* done) {
  unsigned t = __nvvm_read_ptx_sreg_tid_x();
  for (unsigned i = t; i < n; i += __nvvm_read_ptx_sreg_ntid_x()) dst[i] = src[i];
  __nvvm_membar_sys();
  __syncthreads();
  if (t == 0) *done = seq;
}
