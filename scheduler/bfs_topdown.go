package scheduler

import (
	"context"
	"fmt"
	"time"

	"github.com/warpgraph/warpgraph/graph"
	"github.com/warpgraph/warpgraph/kernels"
)

// unvisited is the depth of a vertex BFS has not reached (graph/ref uses
// the same value).
const unvisited = 0xFFFFFFFF

// BFSOptions configures the level-synchronous BFS driver.
type BFSOptions struct {
	// BlockThreads is the CTA size; it must be a multiple of the warp size
	// because the kernel's ballot and shuffle need whole warps. 0 means 256.
	BlockThreads int
}

// LevelStats describes one BFS level: the frontier it expanded and what the
// launch cost on the device.
type LevelStats struct {
	Level        int
	FrontierSize int
	Discovered   int
	Launch       kernels.LaunchStats
}

// BFSResult is a level-synchronous BFS run.
type BFSResult struct {
	Depths []uint32
	Levels []LevelStats
	// Total combines every launch (kernels.LaunchStats.Add): measured or
	// simulated time and cycles add up, and the simulator's counters combine
	// so that rates (IPC, efficiency, hit rates) cover the whole run.
	Total kernels.LaunchStats
	// HostTime is the wall time of the whole run, copies included.
	HostTime time.Duration
}

// BFSTopDown runs breadth-first search from src with the bfs_topdown kernel,
// one launch per level, on any kernels.Device. It is the first scheduler: a
// plain level-synchronous frontier, the baseline the later runtimes beat.
func BFSTopDown(ctx context.Context, dev kernels.Device, g *graph.Graph, src uint32, opt BFSOptions) (*BFSResult, error) {
	n := g.NumVertices()
	if int64(src) >= int64(n) {
		return nil, fmt.Errorf("bfs: source %d is not a vertex (the graph has %d vertices)", src, n)
	}
	block := opt.BlockThreads
	if block == 0 {
		block = 256
	}
	if warp := dev.Properties().WarpSize; warp > 0 && block%warp != 0 {
		return nil, fmt.Errorf("bfs: block of %d threads is not a multiple of the warp size %d", block, warp)
	}
	k, err := kernels.Lookup("bfs_topdown")
	if err != nil {
		return nil, err
	}
	start := time.Now()
	mem := kernels.NewAllocations(dev)
	defer mem.FreeAll()

	depths := make([]uint32, n)
	for i := range depths {
		depths[i] = unvisited
	}
	depths[src] = 0
	offsets, err := kernels.Copy(mem, g.Offsets)
	if err != nil {
		return nil, err
	}
	targets, err := kernels.Copy(mem, g.Targets)
	if err != nil {
		return nil, err
	}
	depthBuf, err := kernels.Copy(mem, depths)
	if err != nil {
		return nil, err
	}
	// Both queues hold up to n vertices: they swap roles every level.
	frontierIn, err := kernels.Slice[uint32](mem, n)
	if err != nil {
		return nil, err
	}
	if err := kernels.Upload(dev, frontierIn, []uint32{src}); err != nil {
		return nil, err
	}
	frontierOut, err := kernels.Slice[uint32](mem, n)
	if err != nil {
		return nil, err
	}
	outLen, err := kernels.Slice[uint32](mem, 1)
	if err != nil {
		return nil, err
	}

	res := &BFSResult{}
	frontier := 1
	zero := []uint32{0}
	count := []uint32{0}
	for level := 0; frontier > 0; level++ {
		if err := kernels.Upload(dev, outLen, zero); err != nil {
			return nil, err
		}
		cfg := kernels.LaunchConfig{Grid: kernels.D1((frontier + block - 1) / block), Block: kernels.D1(block)}
		stats, err := dev.Launch(ctx, k, cfg, offsets, targets, depthBuf, frontierIn, uint32(frontier), frontierOut, outLen, uint32(level))
		if err != nil {
			return nil, fmt.Errorf("bfs level %d (frontier %d): %w", level, frontier, err)
		}
		if err := kernels.Download(dev, count, outLen); err != nil {
			return nil, err
		}
		if int(count[0]) > n {
			return nil, fmt.Errorf("bfs level %d: the kernel reported %d discovered vertices, more than the %d in the graph", level, count[0], n)
		}
		res.Levels = append(res.Levels, LevelStats{Level: level, FrontierSize: frontier, Discovered: int(count[0]), Launch: stats})
		res.Total.Add(stats)
		frontier = int(count[0])
		frontierIn, frontierOut = frontierOut, frontierIn
	}
	if err := kernels.Download(dev, depths, depthBuf); err != nil {
		return nil, err
	}
	res.Depths = depths
	res.HostTime = time.Since(start)
	return res, nil
}
