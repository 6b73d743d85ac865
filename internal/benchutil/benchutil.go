// Package benchutil holds the sample statistics the benchmarks report.
package benchutil

import (
	"math"
	"runtime"
	"slices"
	"time"
)

// Samples is a set of measured latencies.
type Samples []time.Duration

// Quantile returns the nearest-rank q-quantile (0 < q <= 1) of s, or 0 for
// no samples: Quantile(0.5) is the median, Quantile(0.99) the p99.
func (s Samples) Quantile(q float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	sorted := slices.Clone(s)
	slices.Sort(sorted)
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Ms returns d in milliseconds.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Us returns d in microseconds.
func Us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// Ratio returns a/b, or +Inf when b is zero.
func Ratio(a, b time.Duration) float64 {
	if b == 0 {
		return math.Inf(1)
	}
	return float64(a) / float64(b)
}

// Allocs runs f n times and returns the heap allocations a run made, as
// the whole process counts them: run it on a quiet process.
func Allocs(n int, f func()) float64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / float64(n)
}

// Time runs f and returns how long it took.
func Time(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
