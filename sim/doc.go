// Package sim is warpgraph's GPU simulator: it executes the PTX that runs
// on hardware on simulated SMs, in two modes. Functional mode computes exact
// values with the warps of co-resident CTAs interleaved and no time. Timing
// mode (the default) runs the same execution cycle by cycle on akita/v3:
// SMs with schedulers, scoreboards, shared-memory banks and atomics
// (sim/timing) in front of caches, DRAM and L2 atomic units (sim/memsys).
// Device implements kernels.Device, so every driver runs on it unchanged;
// configurations are the YAML files of sim/configs. In both modes a Device
// also keeps a simulated host clock (HostClock): each launch, copy and
// memset advances it by the configuration's host costs (HostConfig) and
// each kernel's simulated time, so a host-driven loop's simulated
// end-to-end time compares with the hardware's. A Monitor (StartMonitor,
// WithMonitor) serves akita's web monitor of timing-mode devices, so a
// simulation can be watched in a browser. The PTX front end lives
// in sim/ptx and the functional executor in sim/exec. sim imports kernels
// and never hw or scheduler.
package sim
