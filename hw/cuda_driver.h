// cuda_driver.h declares the slice of the CUDA driver API that package hw
// uses, so that building needs no CUDA headers or libraries: cuda_driver.c
// resolves each entry point from libcuda.so.1 at run time and wraps it in a
// function cgo can call (cgo cannot call through a C function pointer).
#ifndef WARPGRAPH_HW_CUDA_DRIVER_H
#define WARPGRAPH_HW_CUDA_DRIVER_H

#include <stddef.h>

// Driver types, with cuda.h's sizes and layouts.
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef void *CUevent;
typedef unsigned long long CUdeviceptr;

// WG_ENTRY_POINTS lists every entry point by its exported name (the
// versioned one where the API was revised), parameters and arguments.
// Enum parameters are declared int: C enums have int's size and ABI.
#define WG_ENTRY_POINTS(X) \
	X(cuInit, (unsigned int flags), (flags)) \
	X(cuDriverGetVersion, (int *version), (version)) \
	X(cuDeviceGetCount, (int *count), (count)) \
	X(cuDeviceGet, (CUdevice *dev, int ordinal), (dev, ordinal)) \
	X(cuDeviceGetName, (char *name, int len, CUdevice dev), (name, len, dev)) \
	X(cuDeviceGetAttribute, (int *value, int attrib, CUdevice dev), (value, attrib, dev)) \
	X(cuDeviceTotalMem_v2, (size_t *bytes, CUdevice dev), (bytes, dev)) \
	X(cuDevicePrimaryCtxRetain, (CUcontext *ctx, CUdevice dev), (ctx, dev)) \
	X(cuDevicePrimaryCtxRelease_v2, (CUdevice dev), (dev)) \
	X(cuCtxCreate_v2, (CUcontext *ctx, unsigned int flags, CUdevice dev), (ctx, flags, dev)) \
	X(cuCtxDestroy_v2, (CUcontext ctx), (ctx)) \
	X(cuCtxSetCurrent, (CUcontext ctx), (ctx)) \
	X(cuDeviceCanAccessPeer, (int *can_access, CUdevice dev, CUdevice peer_dev), (can_access, dev, peer_dev)) \
	X(cuCtxEnablePeerAccess, (CUcontext peer_ctx, unsigned int flags), (peer_ctx, flags)) \
	X(cuCtxDisablePeerAccess, (CUcontext peer_ctx), (peer_ctx)) \
	X(cuMemGetInfo_v2, (size_t *free_bytes, size_t *total_bytes), (free_bytes, total_bytes)) \
	X(cuMemAlloc_v2, (CUdeviceptr *ptr, size_t bytes), (ptr, bytes)) \
	X(cuMemFree_v2, (CUdeviceptr ptr), (ptr)) \
	X(cuMemcpyHtoD_v2, (CUdeviceptr dst, const void *src, size_t bytes), (dst, src, bytes)) \
	X(cuMemcpyDtoH_v2, (void *dst, CUdeviceptr src, size_t bytes), (dst, src, bytes)) \
	X(cuMemAllocHost_v2, (void **ptr, size_t bytes), (ptr, bytes)) \
	X(cuMemFreeHost, (void *ptr), (ptr)) \
	X(cuMemcpyHtoDAsync_v2, (CUdeviceptr dst, const void *src, size_t bytes, CUstream stream), (dst, src, bytes, stream)) \
	X(cuMemcpyDtoHAsync_v2, (void *dst, CUdeviceptr src, size_t bytes, CUstream stream), (dst, src, bytes, stream)) \
	X(cuMemcpyDtoDAsync_v2, (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream), (dst, src, bytes, stream)) \
	X(cuMemcpyPeerAsync, (CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t bytes, CUstream stream), (dst, dst_ctx, src, src_ctx, bytes, stream)) \
	X(cuMemsetD8Async, (CUdeviceptr dst, unsigned char value, size_t bytes, CUstream stream), (dst, value, bytes, stream)) \
	X(cuModuleLoadDataEx, (CUmodule *mod, const void *image, unsigned int num_options, int *options, void **values), (mod, image, num_options, options, values)) \
	X(cuModuleGetFunction, (CUfunction *fn, CUmodule mod, const char *name), (fn, mod, name)) \
	X(cuModuleUnload, (CUmodule mod), (mod)) \
	X(cuFuncGetAttribute, (int *value, int attrib, CUfunction fn), (value, attrib, fn)) \
	X(cuOccupancyMaxActiveBlocksPerMultiprocessor, (int *blocks, CUfunction fn, int block_size, size_t dynamic_smem), (blocks, fn, block_size, dynamic_smem)) \
	X(cuLaunchKernel, (CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem, CUstream stream, void **params, void **extra), (fn, gx, gy, gz, bx, by, bz, smem, stream, params, extra)) \
	X(cuLaunchCooperativeKernel, (CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem, CUstream stream, void **params), (fn, gx, gy, gz, bx, by, bz, smem, stream, params)) \
	X(cuStreamCreate, (CUstream *stream, unsigned int flags), (stream, flags)) \
	X(cuStreamDestroy_v2, (CUstream stream), (stream)) \
	X(cuStreamSynchronize, (CUstream stream), (stream)) \
	X(cuStreamQuery, (CUstream stream), (stream)) \
	X(cuEventCreate, (CUevent *event, unsigned int flags), (event, flags)) \
	X(cuEventDestroy_v2, (CUevent event), (event)) \
	X(cuEventRecord, (CUevent event, CUstream stream), (event, stream)) \
	X(cuEventQuery, (CUevent event), (event)) \
	X(cuEventElapsedTime, (float *ms, CUevent start, CUevent end), (ms, start, end)) \
	X(cuGetErrorName, (CUresult code, const char **name), (code, name)) \
	X(cuGetErrorString, (CUresult code, const char **text), (code, text))

#define WG_PROTOTYPE(name, params, args) CUresult wg_##name params;
WG_ENTRY_POINTS(WG_PROTOTYPE)
#undef WG_PROTOTYPE

// wg_load's results.
enum { WG_LOADED = 0, WG_NO_LIBRARY = 1, WG_MISSING_SYMBOL = 2 };

// wg_load opens libcuda.so.1 and resolves every entry point. On failure
// *detail is dlerror's message or the missing symbol's name, valid until
// the next dlerror call.
int wg_load(const char **detail);

// wg_module_load JIT-compiles a NUL-terminated PTX image, capturing the
// compiler's info and error logs in the caller's zeroed buffers; with
// line_info it keeps the PTX's .loc lines in the code (-lineinfo), for
// profilers.
CUresult wg_module_load(CUmodule *mod, const void *image,
	char *info_log, unsigned int info_size, char *error_log, unsigned int error_size,
	int line_info);

// wg_launch launches fn on stream, cooperatively when asked.
CUresult wg_launch(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
	unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem,
	CUstream stream, void **params, int cooperative);

#endif
