package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// akitaModule is the simulator's engine, whose version shapes every
// simulated cycle, so --version names it.
const akitaModule = "github.com/sarchlab/akita/v3"

// versionLine is what `warpgraph --version` prints: the commit the binary
// was built from (stamped by make build, else Go's VCS stamp, else
// "unknown"), the Go toolchain, and the akita version.
func versionLine() string {
	akita := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == akitaModule {
				akita = d.Version
				if d.Replace != nil {
					akita += " (replaced by " + d.Replace.Path + " " + d.Replace.Version + ")"
				}
			}
		}
	}
	return fmt.Sprintf("warpgraph commit %s, %s %s/%s, akita %s", commitForRows(), runtime.Version(), runtime.GOOS, runtime.GOARCH, akita)
}
