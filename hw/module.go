//go:build cgo

package hw

/*
#include <stdlib.h>
#include "cuda_driver.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/warpgraph/warpgraph/kernels"
)

// jitLogBytes bounds each JIT log; ptxas reports the first errors first.
const jitLogBytes = 64 << 10

// loadedModule is a kernels.Module JIT-compiled into the device's context.
type loadedModule struct {
	handle  C.CUmodule
	infoLog string
	funcs   map[string]*loadedFunction
}

// loadedFunction is one kernel entry of a loaded module, with the resource
// needs the driver reports for it.
type loadedFunction struct {
	handle C.CUfunction
	attrs  kernels.KernelAttrs
	// perSM caches the driver's occupancy by block (threads, dynamic
	// shared bytes): a persistent or cooperative launch asks for it on
	// every run, and the driver's query costs the host several
	// microseconds each time for an answer that cannot change.
	perSM map[[2]int]int
}

// Load JIT-compiles k's module, if this device has not yet, and finds k in
// it. Launch, Attributes and Occupancy load on demand, so calling Load is
// optional; it surfaces PTX errors early.
func (d *Device) Load(k *kernels.Kernel) error {
	return d.run(func() error {
		_, err := d.function(k)
		return err
	})
}

// JITLog returns the driver's informational JIT log for m's compilation
// (empty unless the driver has something to say), loading m if needed.
func (d *Device) JITLog(m *kernels.Module) (string, error) {
	var log string
	err := d.run(func() error {
		lm, err := d.module(m)
		if err == nil {
			log = lm.infoLog
		}
		return err
	})
	return log, err
}

// Attributes returns the registers, static shared memory, local memory and
// thread limit the driver reports for k on this device.
func (d *Device) Attributes(k *kernels.Kernel) (kernels.KernelAttrs, error) {
	var attrs kernels.KernelAttrs
	err := d.run(func() error {
		f, err := d.function(k)
		if err == nil {
			attrs = f.attrs
		}
		return err
	})
	return attrs, err
}

// Occupancy returns how many CTAs of k with blockThreads threads and
// dynamicSmem bytes of dynamic shared memory fit on one SM at once.
func (d *Device) Occupancy(k *kernels.Kernel, blockThreads, dynamicSmem int) (int, error) {
	if blockThreads <= 0 || dynamicSmem < 0 {
		return 0, fmt.Errorf("hw: Occupancy(%s, %d threads, %d bytes): invalid block", kernelName(k), blockThreads, dynamicSmem)
	}
	var ctas int
	err := d.run(func() error {
		f, err := d.function(k)
		if err != nil {
			return err
		}
		ctas, err = d.occupancy(k.Name, f, blockThreads, dynamicSmem)
		return err
	})
	return ctas, err
}

func (d *Device) occupancy(name string, f *loadedFunction, blockThreads, dynamicSmem int) (int, error) {
	key := [2]int{blockThreads, dynamicSmem}
	if n, ok := f.perSM[key]; ok {
		return n, nil
	}
	var n C.int
	r := C.wg_cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f.handle, C.int(blockThreads), C.size_t(dynamicSmem))
	if r != cudaSuccess {
		return 0, d.sticky(cudaError(fmt.Sprintf("cuOccupancyMaxActiveBlocksPerMultiprocessor(%s)", name), r))
	}
	if f.perSM == nil {
		f.perSM = map[[2]int]int{}
	}
	f.perSM[key] = int(n)
	return int(n), nil
}

func kernelName(k *kernels.Kernel) string {
	if k == nil {
		return "<nil>"
	}
	return k.Name
}

// function returns k's entry, loading its module on first use. It runs on
// the CUDA thread.
func (d *Device) function(k *kernels.Kernel) (*loadedFunction, error) {
	if k == nil || k.Module == nil {
		return nil, fmt.Errorf("hw: kernel %s has no module", kernelName(k))
	}
	lm, err := d.module(k.Module)
	if err != nil {
		return nil, err
	}
	if f, ok := lm.funcs[k.Name]; ok {
		return f, nil
	}
	name := C.CString(k.Name)
	defer C.free(unsafe.Pointer(name))
	var fn C.CUfunction
	r := C.wg_cuModuleGetFunction(&fn, lm.handle, name)
	if r == cudaNotFound {
		return nil, fmt.Errorf("hw: module %s has no kernel entry %s (%w)", k.Module.Name, k.Name, cudaError("cuModuleGetFunction", r))
	}
	if err := d.sticky(check(fmt.Sprintf("cuModuleGetFunction(%s)", k.Name), r)); err != nil {
		return nil, err
	}
	attrs, err := d.functionAttrs(k.Name, fn)
	if err != nil {
		return nil, err
	}
	f := &loadedFunction{handle: fn, attrs: attrs}
	lm.funcs[k.Name] = f
	return f, nil
}

func (d *Device) functionAttrs(name string, fn C.CUfunction) (kernels.KernelAttrs, error) {
	var firstErr error
	attr := func(a int, what string) int {
		var v C.int
		err := d.sticky(check(fmt.Sprintf("cuFuncGetAttribute(%s, %s)", name, what), C.wg_cuFuncGetAttribute(&v, C.int(a), fn)))
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return int(v)
	}
	attrs := kernels.KernelAttrs{
		RegistersPerThread: attr(funcAttrNumRegs, "NUM_REGS"),
		StaticSharedMem:    attr(funcAttrSharedSizeBytes, "SHARED_SIZE_BYTES"),
		LocalMemPerThread:  attr(funcAttrLocalSizeBytes, "LOCAL_SIZE_BYTES"),
		MaxThreadsPerCTA:   attr(funcAttrMaxThreadsPerBlock, "MAX_THREADS_PER_BLOCK"),
	}
	return attrs, firstErr
}

// module returns m loaded into the context, JIT-compiling it on first use.
// A compilation error carries the JIT's error log.
func (d *Device) module(m *kernels.Module) (*loadedModule, error) {
	if lm, ok := d.modules[m]; ok {
		return lm, nil
	}
	if len(m.PTX) == 0 {
		return nil, fmt.Errorf("hw: module %s has no PTX", m.Name)
	}
	// The driver reads PTX as a NUL-terminated string.
	image := C.CBytes(append(m.PTX[:len(m.PTX):len(m.PTX)], 0))
	defer C.free(image)
	infoLog := (*C.char)(C.calloc(jitLogBytes, 1))
	defer C.free(unsafe.Pointer(infoLog))
	errorLog := (*C.char)(C.calloc(jitLogBytes, 1))
	defer C.free(unsafe.Pointer(errorLog))

	var handle C.CUmodule
	lineInfo := C.int(0)
	if JITLineInfo() {
		lineInfo = 1
	}
	r := C.wg_module_load(&handle, image, infoLog, jitLogBytes, errorLog, jitLogBytes, lineInfo)
	if r != cudaSuccess {
		err := d.sticky(cudaError(fmt.Sprintf("cuModuleLoadDataEx(%s)", m.Name), r))
		log := strings.TrimSpace(C.GoString(errorLog))
		if log == "" {
			log = "(empty)"
		}
		return nil, fmt.Errorf("hw: JIT-compiling module %s: %w\nJIT error log:\n%s", m.Name, err, log)
	}
	lm := &loadedModule{
		handle:  handle,
		infoLog: strings.TrimSpace(C.GoString(infoLog)),
		funcs:   map[string]*loadedFunction{},
	}
	d.modules[m] = lm
	return lm, nil
}
