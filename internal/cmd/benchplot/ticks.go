package main

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// A log axis is drawn as a linear axis of the values' base-10 logarithms
// with ticks labelled by the values: gonum's LogScale places a centred axis
// label's box at the arithmetic middle of the range, which pads a log plot
// by empty space.

// log10s returns the points with X, Y or both replaced by their base-10
// logarithms.
func log10s(pts plotter.XYs, x, y bool) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		if x {
			p.X = math.Log10(p.X)
		}
		if y {
			p.Y = math.Log10(p.Y)
		}
		out[i] = p
	}
	return out
}

// logTicks labels each power of ten of a log10 axis and marks the steps
// between them.
func logTicks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for k := math.Floor(min); k <= math.Ceil(max); k++ {
		ticks = append(ticks, plot.Tick{Value: k, Label: number(math.Pow(10, k))})
		for i := 2; i < 10 && k < math.Ceil(max); i++ {
			ticks = append(ticks, plot.Tick{Value: k + math.Log10(float64(i))})
		}
	}
	return ticks
}

// linearTicks labels about five round values from min to max: steps of 1,
// 2 or 5 times a power of ten.
func linearTicks(min, max float64) []plot.Tick {
	if !(max > min) {
		return []plot.Tick{{Value: min, Label: number(min)}}
	}
	raw := (max - min) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for i := math.Ceil(min / step); i*step <= max+step*1e-9; i++ {
		ticks = append(ticks, plot.Tick{Value: i * step, Label: number(i * step)})
	}
	return ticks
}

// number writes a tick's value in as few digits as it needs.
func number(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}
