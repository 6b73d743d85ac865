package main

import (
	"bytes"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// chart is what one plot shows: named series of points, drawn as lines
// over a numeric axis, as lines over named categories, or as grouped bars.
type chart struct {
	title, x, y string
	// categories name the points' places on the category axis: a point's X
	// is its category's index. Nil for a numeric X axis.
	categories []string
	bars       bool // grouped horizontal bars, one group per category
	logX, logY bool
	ticks      []float64 // X values to label on a numeric axis; nil picks them
	series     []series
}

// series is one line or one set of bars, named in the legend.
type series struct {
	name string
	pts  plotter.XYs
}

// empty reports whether the chart has no point to draw.
func (c *chart) empty() bool {
	for _, s := range c.series {
		if len(s.pts) > 0 {
			return false
		}
	}
	return true
}

const (
	width       = 6 * vg.Inch
	plotHeight  = 3.4 * vg.Inch
	legendLine  = 16            // points a legend row takes
	legendInset = 0.6 * vg.Inch // aligns the legend with the data area
)

// sans is the face of every text at size points: layout is measured with
// Liberation Sans, and a viewer without it substitutes its own sans-serif.
func sans(size vg.Length) font.Font {
	return font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, size)
}

// svg draws the chart with its legend below the plot. The same chart gives
// the same bytes: the SVG embeds no font, date or random identifier.
func (c *chart) svg() ([]byte, error) {
	p, thumbs, err := c.plot()
	if err != nil {
		return nil, err
	}
	legends := c.legends(thumbs)
	rows := (len(c.series) + len(legends) - 1) / len(legends)
	legendHeight := vg.Length(rows)*legendLine + 10
	canvas := vgsvg.New(width, plotHeight+legendHeight)
	dc := draw.New(canvas)
	p.Draw(draw.Crop(dc, 4, -14, legendHeight, -8))
	below := draw.Crop(dc, legendInset, 0, 0, -plotHeight)
	colWidth := (width - legendInset) / vg.Length(len(legends))
	for i, l := range legends {
		left := vg.Length(i) * colWidth
		l.Draw(draw.Crop(below, left, left+colWidth-(width-legendInset), 0, 0))
	}
	var b bytes.Buffer
	if _, err := canvas.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// legends lays the series' legend entries out in two columns when the
// longest fits in one, or else in one column.
func (c *chart) legends(thumbs [][]plot.Thumbnailer) []plot.Legend {
	newLegend := func() plot.Legend {
		l := plot.NewLegend()
		l.TextStyle.Font = sans(11)
		l.Top, l.Left = true, true
		l.Padding = legendLine - l.TextStyle.Height("M")
		return l
	}
	cols := 2
	probe := newLegend()
	for _, s := range c.series {
		entry := probe.ThumbnailWidth + probe.TextStyle.Width(" "+s.name) + 12
		if entry > (width-legendInset)/2 {
			cols = 1
		}
	}
	rows := (len(c.series) + cols - 1) / cols
	var legends []plot.Legend
	for col := 0; col < cols && col*rows < len(c.series); col++ {
		l := newLegend()
		for i := col * rows; i < (col+1)*rows && i < len(c.series); i++ {
			l.Add(c.series[i].name, thumbs[i]...)
		}
		legends = append(legends, l)
	}
	return legends
}

// plot builds the plot and, for each series, what its legend entry shows.
func (c *chart) plot() (*plot.Plot, [][]plot.Thumbnailer, error) {
	p := plot.New()
	p.Title.Text = c.title
	p.Title.TextStyle.Font = sans(13)
	p.X.Label.Text, p.Y.Label.Text = c.x, c.y
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(11)
		a.Tick.Label.Font = sans(10)
	}
	p.Add(plotter.NewGrid())
	thumbs := make([][]plot.Thumbnailer, len(c.series))
	if c.bars {
		if err := c.addBars(p, thumbs); err != nil {
			return nil, nil, err
		}
		return p, thumbs, nil
	}
	for i, s := range c.series {
		l, sc, err := plotter.NewLinePoints(log10s(s.pts, c.logX, c.logY))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s: %w", c.title, s.name, err)
		}
		l.Color = plotutil.Color(i)
		sc.Color = plotutil.Color(i)
		sc.Shape = plotutil.Shape(i)
		sc.Radius = vg.Points(3.5)
		p.Add(l, sc)
		thumbs[i] = []plot.Thumbnailer{l, sc}
	}
	c.axes(p)
	return p, thumbs, nil
}

// axes sets the ticks and the ranges of a line chart.
func (c *chart) axes(p *plot.Plot) {
	switch {
	case c.categories != nil:
		ticks := make([]plot.Tick, len(c.categories))
		for i, name := range c.categories {
			ticks[i] = plot.Tick{Value: float64(i), Label: name}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = -0.3, float64(len(c.categories)-1)+0.3
	case c.ticks != nil:
		ticks := make([]plot.Tick, len(c.ticks))
		for i, v := range c.ticks {
			ticks[i] = plot.Tick{Value: v, Label: number(v)}
			if c.logX {
				ticks[i].Value = math.Log10(v)
			}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		if c.logX {
			p.X.Min, p.X.Max = p.X.Min-0.15, p.X.Max+0.15
		}
	default:
		p.X.Tick.Marker = plot.TickerFunc(linearTicks)
	}
	if c.logY {
		p.Y.Tick.Marker = plot.TickerFunc(logTicks)
		p.Y.Min, p.Y.Max = math.Floor(p.Y.Min), math.Ceil(p.Y.Max)
	} else {
		p.Y.Tick.Marker = plot.TickerFunc(linearTicks)
		p.Y.Min = 0 // a figure's size reads against zero
		p.Y.Max *= 1.08
	}
}

// addBars draws each series as one bar per category, side by side within
// a category, the categories down the Y axis so that long names fit.
func (c *chart) addBars(p *plot.Plot, thumbs [][]plot.Thumbnailer) error {
	n := len(c.series)
	barWidth := vg.Points(float64(plotHeight.Points()) * 0.6 / float64(len(c.categories)*n))
	for i, s := range c.series {
		vals := make(plotter.Values, len(c.categories))
		for j := range vals {
			vals[j] = math.NaN()
		}
		for _, pt := range s.pts {
			vals[len(vals)-1-int(pt.X)] = pt.Y // the first category on top
		}
		for j, v := range vals {
			if math.IsNaN(v) {
				vals[j] = 0 // no result: no bar
			}
		}
		b, err := plotter.NewBarChart(vals, barWidth)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", c.title, s.name, err)
		}
		b.Horizontal = true
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = 0
		// The first series on top: the Y axis grows upwards.
		b.Offset = vg.Length(float64(n-1)/2-float64(i)) * barWidth
		p.Add(b)
		thumbs[i] = []plot.Thumbnailer{b}
	}
	names := make([]string, len(c.categories))
	for j, name := range c.categories {
		names[len(names)-1-j] = name
	}
	p.NominalY(names...)
	p.X.Tick.Marker = plot.TickerFunc(linearTicks)
	p.X.Min = 0
	p.X.Max *= 1.05
	return nil
}
