package hw

import (
	_ "embed"

	"github.com/warpgraph/warpgraph/kernels"
)

// testKernelsPTX is testdata/testkernels.cu compiled by clang++-16.
//
//go:embed testdata/testkernels.ptx
var testKernelsPTX string

// testKernels is the module of testdata/testkernels.cu, described by hand
// as the kernels catalog would describe it.
type testKernels struct {
	module              *kernels.Module
	vadd, spin, storeAt *kernels.Kernel
}

func loadTestKernels() testKernels {
	m := &kernels.Module{Name: "testkernels", PTX: []byte(testKernelsPTX)}
	ptr := func(name string) kernels.Param { return kernels.Param{Name: name, Size: 8, Align: 8} }
	u32 := func(name string) kernels.Param { return kernels.Param{Name: name, Size: 4, Align: 4} }
	entry := func(name string, params ...kernels.Param) *kernels.Kernel {
		k := &kernels.Kernel{Name: name, Module: m, Params: params}
		m.Kernels = append(m.Kernels, k)
		return k
	}
	return testKernels{
		module:  m,
		vadd:    entry("vadd", ptr("a"), ptr("b"), ptr("c"), u32("n")),
		spin:    entry("spin", ptr("flag"), kernels.Param{Name: "budget_ns", Size: 8, Align: 8}, ptr("aborted")),
		storeAt: entry("store_at", ptr("p"), u32("v")),
	}
}
