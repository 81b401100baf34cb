// Package check collects the problems of a configuration so that one
// validation reports all of them, each naming its YAML field. It is shared
// by the simulator's configuration parts (sim/timing, sim/memsys).
package check

import (
	"errors"
	"fmt"
)

// Problems accumulates validation failures.
type Problems struct{ errs []error }

// Add records one problem.
func (p *Problems) Add(format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf(format, args...))
}

// Positive requires v > 0.
func (p *Problems) Positive(name string, v int) {
	if v <= 0 {
		p.Add("%s must be positive, got %d", name, v)
	}
}

// NotNegative requires v >= 0.
func (p *Problems) NotNegative(name string, v int) {
	if v < 0 {
		p.Add("%s must not be negative, got %d", name, v)
	}
}

// PowerOfTwo requires a positive v to be a power of two (a non-positive v
// is Positive's business).
func (p *Problems) PowerOfTwo(name string, v int) {
	if v > 0 && v&(v-1) != 0 {
		p.Add("%s must be a power of two, got %d", name, v)
	}
}

// SectorsPerLine requires a sector no larger than its line and at most 32
// sectors per line (sector masks are 32-bit).
func (p *Problems) SectorsPerLine(sectorName string, sector int, lineName string, line int) {
	if sector <= 0 || line <= 0 {
		return
	}
	if sector > line {
		p.Add("%s (%d) must not exceed %s (%d)", sectorName, sector, lineName, line)
	} else if line/sector > 32 {
		p.Add("a line may hold at most 32 sectors, got %d/%d", line, sector)
	}
}

// Err returns nil without problems, else one error about what, joining
// every problem.
func (p *Problems) Err(what string) error {
	if len(p.errs) == 0 {
		return nil
	}
	return fmt.Errorf("invalid %s: %w", what, errors.Join(p.errs...))
}
