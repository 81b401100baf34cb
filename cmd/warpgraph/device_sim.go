package main

func openSimulator(mode, config string) (*deviceEnv, error) {
	return nil, badInput("--target sim (mode %s, config %s): the simulator is not wired into the command line yet", mode, config)
}
