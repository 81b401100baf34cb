package hw

import (
	"context"
	"time"

	"github.com/warpgraph/warpgraph/kernels"
)

// median is kernels.Median: the middle sample of a launch's timed runs.
func median(samples []time.Duration) time.Duration { return kernels.Median(samples) }

// Waiting for the device (a launch's end event, a staged copy): the host
// busy-polls for the first spinWindow, so that a kernel or a copy is seen
// finishing within a microsecond or so, and only then sleeps, backing off
// from pollFirst to pollMax, so that a very long kernel costs the host one
// wakeup per millisecond. Kernel times come from device events, but
// end-to-end times are the host's wall clock, which includes how late the
// host sees each wait end: with a 2 ms window a 4.6 ms kernel was seen up to
// 0.9 ms late (Atos BFS on grid:w=1000,h=1000 on the H100, end to end 5.40
// ms against 4.60 ms of kernel). A second of spinning keeps that error
// under a microsecond for every kernel of the issues' figures, and under
// 0.1% (pollMax against the wait) beyond.
const (
	spinWindow = time.Second
	// pollCheckEvery polls pass between reads of the clock and the
	// context while spinning.
	pollCheckEvery = 16
	pollFirst      = 50 * time.Microsecond
	pollMax        = time.Millisecond
)

func nextPoll(d time.Duration) time.Duration {
	return min(2*d, pollMax)
}

// pollUntil calls ready until it returns true: back to back for
// spinWindow (reading ctx every pollCheckEvery calls), then once after
// each sleep of the backoff (reading ctx after each call). It returns nil
// once ready does, or ctx's error once ctx has ended with ready still
// false.
func pollUntil(ctx context.Context, ready func() bool) error {
	began := time.Now()
	for i := 1; ; i++ {
		if ready() {
			return nil
		}
		if i%pollCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if time.Since(began) >= spinWindow {
				break
			}
		}
	}
	for pause := pollFirst; ; pause = nextPoll(pause) {
		if err := ctx.Err(); err != nil {
			return err
		}
		time.Sleep(pause)
		if ready() {
			return nil
		}
	}
}

// eventMilliseconds converts cuEventElapsedTime's float milliseconds.
func eventMilliseconds(ms float32) time.Duration {
	return time.Duration(float64(ms) * float64(time.Millisecond))
}
