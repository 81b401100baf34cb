package hw

import "os"

// JITLineInfoEnv names the environment variable that makes the backend
// JIT-compile PTX with line information (ptxas -lineinfo, the driver's
// CU_JIT_GENERATE_LINE_INFO), so that a profiler run on warpgraph (Nsight
// Compute's source page, its warp-state samples per SASS instruction) can
// name the CUDA source line of each sample, as the simulator's --profile
// does. Set to anything but "" or "0". Off by default: line information
// does not change the code ptxas generates, but nothing needs it unless a
// profiler is attached.
const JITLineInfoEnv = "WARPGRAPH_JIT_LINEINFO"

// JITLineInfo reports whether JITLineInfoEnv asks for line information.
func JITLineInfo() bool {
	v := os.Getenv(JITLineInfoEnv)
	return v != "" && v != "0"
}
