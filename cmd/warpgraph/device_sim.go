package main

import (
	"github.com/warpgraph/warpgraph/sim"
)

// openSimulator opens a simulated device; mon, when not nil, watches it
// (--monitor); extra are more options (--profile, --trace).
func openSimulator(mode, config string, mon *sim.Monitor, extra ...sim.Option) (*deviceEnv, error) {
	m, err := sim.ParseMode(mode)
	if err != nil {
		return nil, &inputError{err}
	}
	opts := []sim.Option{sim.WithMode(m)}
	if mon != nil {
		opts = append(opts, sim.WithMonitor(mon))
	}
	opts = append(opts, extra...)
	dev, err := sim.Open(config, opts...)
	if err != nil {
		// A missing or malformed configuration is the user's input.
		return nil, &inputError{err}
	}
	return &deviceEnv{dev: dev, target: "sim", simMode: string(m), config: config, sim: dev}, nil
}
