package main

import (
	"github.com/warpgraph/warpgraph/sim"
)

func openSimulator(mode, config string) (*deviceEnv, error) {
	m, err := sim.ParseMode(mode)
	if err != nil {
		return nil, &inputError{err}
	}
	cfg, err := sim.LoadConfig(config)
	if err != nil {
		return nil, &inputError{err}
	}
	dev, err := sim.New(cfg.Config, sim.WithMode(m))
	if err != nil {
		return nil, err
	}
	return &deviceEnv{dev: dev, target: "sim", simMode: string(m), config: config}, nil
}
