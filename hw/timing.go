package hw

import (
	"slices"
	"time"
)

// median returns the middle sample (the mean of the two middle ones for
// an even count), or 0 for none. Kernel times have a long tail — clock
// ramps, the first touch of memory — so the median, not the mean, is what
// Launch reports.
func median(samples []time.Duration) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	mid := len(s) / 2
	if len(s)%2 == 1 {
		return s[mid]
	}
	return s[mid-1] + (s[mid]-s[mid-1])/2
}

// Polling backoff while a kernel runs: short kernels are seen finishing
// within tens of microseconds, long ones cost the host one wakeup per
// millisecond. Timing comes from device events, so polling never skews it.
const (
	pollFirst = 50 * time.Microsecond
	pollMax   = time.Millisecond
)

func nextPoll(d time.Duration) time.Duration {
	return min(2*d, pollMax)
}

// eventMilliseconds converts cuEventElapsedTime's float milliseconds.
func eventMilliseconds(ms float32) time.Duration {
	return time.Duration(float64(ms) * float64(time.Millisecond))
}
