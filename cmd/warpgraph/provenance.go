package main

import (
	"fmt"
	"os"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/sim"
)

// provenance says what produced an output: the code (commit, and the
// version line of `warpgraph --version`: commit, Go toolchain, akita), the
// simulated machine (the configuration's name and a digest of its
// effective values, so that an edited file or an override is told apart
// from the shipped machine), the seed, and the host. Every --json document
// and every --out header carries it, so that a result found later names
// its origin. Sweeps' CSVs carry their own commit column.
type provenance struct {
	Commit  string            `json:"commit"`
	Version string            `json:"version"`
	Config  *configProvenance `json:"config,omitempty"`
	// Seed is the run's --seed, or a generated graph's seed for info;
	// absent where nothing is drawn.
	Seed *uint64 `json:"seed,omitempty"`
	Host string  `json:"host"`
}

// configProvenance names a simulator configuration and digests its values
// (sim.Config.Digest).
type configProvenance struct {
	Name   string `json:"name"`
	Digest string `json:"digest,omitempty"`
}

// newProvenance is the provenance of an output; config is the simulator
// configuration ("" when no simulator ran) and seed nil when nothing is
// drawn.
func newProvenance(config string, seed *uint64) *provenance {
	p := &provenance{Commit: commitForRows(), Version: versionLine(), Seed: seed, Host: "unknown"}
	if h, err := os.Hostname(); err == nil && h != "" {
		p.Host = h
	}
	if config != "" {
		p.Config = &configProvenance{Name: config}
		// The device loaded it already; a file that became unreadable
		// since leaves the digest out rather than failing the output.
		if c, err := sim.LoadConfig(config); err == nil {
			p.Config.Digest = c.Digest()
		}
	}
	return p
}

// runProvenance is a run's provenance: the configuration when it ran on
// the simulator, and --seed (randomised algorithms' seed, --sources' draw;
// 1 unless given).
func runProvenance(o runOptions) *provenance {
	config := ""
	if o.target == "sim" {
		config = o.config
	}
	seed, err := o.sourcesSeed()
	if err != nil {
		return newProvenance(config, nil)
	}
	return newProvenance(config, &seed)
}

// specSeed is the seed of a generated graph, nil for a file.
func specSeed(s graph.Spec) *uint64 {
	var seed uint64
	switch src := s.Source.(type) {
	case graph.RMAT:
		seed = src.Seed
	case graph.Grid:
		seed = src.Seed
	case graph.ER:
		seed = src.Seed
	case graph.Regular:
		seed = src.Seed
	default:
		return nil
	}
	return &seed
}

// headerLines are the provenance as the text --out format's '#' lines.
func (p *provenance) headerLines() []string {
	if p == nil {
		return nil
	}
	lines := []string{"commit " + p.Commit, "version " + p.Version}
	if c := p.Config; c != nil {
		line := "config " + c.Name
		if c.Digest != "" {
			line += " (" + c.Digest + ")"
		}
		lines = append(lines, line)
	}
	if p.Seed != nil {
		lines = append(lines, fmt.Sprintf("seed %d", *p.Seed))
	}
	return append(lines, "host "+p.Host)
}
