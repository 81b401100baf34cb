// Package experiments owns warpgraph's named, parameterised sweeps: each
// reproduces a result of the sources or cross-checks the simulator against
// hardware and writes results/<name>/ with the command, commit, machine and
// date beside every table. Microbenchmark drivers live in experiments/micro.
package experiments
