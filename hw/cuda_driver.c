//go:build cgo

// cuda_driver.c resolves the CUDA driver's entry points with dlopen/dlsym
// (see cuda_driver.h).
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "cuda_driver.h"

// CUjit_option values (cuda.h, CUjit_option_enum).
enum {
	WG_CU_JIT_INFO_LOG_BUFFER = 3,
	WG_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
	WG_CU_JIT_ERROR_LOG_BUFFER = 5,
	WG_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
	WG_CU_JIT_GENERATE_LINE_INFO = 13,
};

// For each entry point: the pointer wg_load fills and the wrapper.
#define WG_DEFINE(name, params, args) \
	static CUresult (*p_##name) params; \
	CUresult wg_##name params { return p_##name args; }
WG_ENTRY_POINTS(WG_DEFINE)
#undef WG_DEFINE

// wg_resolve looks up an entry point. cuEventElapsedTime was revised in
// CUDA 12.8 without a change of signature: newer drivers export
// cuEventElapsedTime_v2, which is preferred; older ones only the original.
static void *wg_resolve(void *lib, const char *name) {
	if (strcmp(name, "cuEventElapsedTime") == 0) {
		void *revised = dlsym(lib, "cuEventElapsedTime_v2");
		if (revised != NULL) {
			return revised;
		}
	}
	return dlsym(lib, name);
}

int wg_load(const char **detail) {
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		*detail = dlerror();
		return WG_NO_LIBRARY;
	}
#define WG_RESOLVE(name, params, args) \
	p_##name = (CUresult (*) params)wg_resolve(lib, #name); \
	if (p_##name == NULL) { *detail = #name; return WG_MISSING_SYMBOL; }
	WG_ENTRY_POINTS(WG_RESOLVE)
#undef WG_RESOLVE
	return WG_LOADED;
}

CUresult wg_module_load(CUmodule *mod, const void *image,
		char *info_log, unsigned int info_size, char *error_log, unsigned int error_size,
		int line_info) {
	int options[5] = {
		WG_CU_JIT_INFO_LOG_BUFFER, WG_CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
		WG_CU_JIT_ERROR_LOG_BUFFER, WG_CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
		WG_CU_JIT_GENERATE_LINE_INFO,
	};
	// Sizes and flags travel in the pointer-sized option slots, as cuda.h
	// specifies.
	void *values[5] = {
		info_log, (void *)(uintptr_t)info_size,
		error_log, (void *)(uintptr_t)error_size,
		(void *)(uintptr_t)1,
	};
	return p_cuModuleLoadDataEx(mod, image, line_info ? 5 : 4, options, values);
}

CUresult wg_launch(CUfunction fn, unsigned int gx, unsigned int gy, unsigned int gz,
		unsigned int bx, unsigned int by, unsigned int bz, unsigned int smem,
		CUstream stream, void **params, int cooperative) {
	if (cooperative) {
		return p_cuLaunchCooperativeKernel(fn, gx, gy, gz, bx, by, bz, smem, stream, params);
	}
	return p_cuLaunchKernel(fn, gx, gy, gz, bx, by, bz, smem, stream, params, NULL);
}
