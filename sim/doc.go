// Package sim is warpgraph's GPU simulator: it executes the PTX that runs
// on hardware on simulated SMs, functionally (exact values, no cycles) and,
// later, cycle by cycle on akita/v3. It implements kernels.Device so every
// driver runs on it unchanged. The PTX front end lives in sim/ptx; sim
// imports kernels and never hw or scheduler.
package sim
