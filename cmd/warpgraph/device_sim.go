package main

import (
	"github.com/warpgraph/warpgraph/sim"
)

func openSimulator(mode, config string) (*deviceEnv, error) {
	m, err := sim.ParseMode(mode)
	if err != nil {
		return nil, &inputError{err}
	}
	dev, err := sim.Open(config, sim.WithMode(m))
	if err != nil {
		// A missing or malformed configuration is the user's input.
		return nil, &inputError{err}
	}
	return &deviceEnv{dev: dev, target: "sim", simMode: string(m), config: config}, nil
}
