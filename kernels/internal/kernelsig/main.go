// Command kernelsig reads a preprocessed CUDA source (clang -E) on standard
// input and writes its kernel signature file (kernels.ExtractSignatures) to
// standard output. `make kernels` runs it beside every PTX build.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/warpgraph/warpgraph/kernels"
)

func main() {
	pre, err := io.ReadAll(os.Stdin)
	if err == nil {
		var sig []byte
		if sig, err = kernels.ExtractSignatures(pre); err == nil {
			_, err = os.Stdout.Write(sig)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kernelsig:", err)
		os.Exit(1)
	}
}
