package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Line is one named curve.
type Line struct {
	Name string
	X, Y []float64
}

// points is s's points as at places them, leaving out those it rejects:
// the ones an axis cannot show (at or below zero on a log scale, NaN).
func (s Line) points(at func(x, y float64) (plotter.XY, bool)) plotter.XYs {
	var xy plotter.XYs
	for j := range s.X {
		if pt, ok := at(s.X[j], s.Y[j]); ok {
			xy = append(xy, pt)
		}
	}
	return xy
}

// Bar is one named value with its 95% confidence interval.
type Bar struct {
	Name          string
	Value, Lo, Hi float64
}

// Fit is measured points and the least-squares line through them.
type Fit struct {
	Name             string
	X, Y             []float64
	Slope, Intercept float64
}

// Size of every figure: wide enough for a legend of a dozen paths.
const (
	width  = 8 * vg.Inch
	height = 5 * vg.Inch
)

// Formats are the image formats every drawing function accepts.
var Formats = []string{"png", "svg"}

// write renders p in format ("png" or "svg") to w. The legend is drawn in
// a column of its own right of the plot, never over the data: the figure
// grows by its width (and in height when the legend is the taller).
func write(w io.Writer, p *plot.Plot, format string, h vg.Length) error {
	switch format {
	case "png", "svg":
	default:
		return fmt.Errorf("plot: format %q: want png or svg", format)
	}
	leg := p.Legend
	p.Legend = plot.NewLegend()
	r := leg.Rectangle(draw.Canvas{})
	legW, legH := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	pad := vg.Points(10)
	if legW > 0 {
		legW += 2 * pad
		h = max(h, legH+2*pad)
	}
	c, err := draw.NewFormattedCanvas(width+legW, h, format)
	if err != nil {
		return fmt.Errorf("plot: render %s: %w", format, err)
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	p.Draw(draw.Crop(dc, 0, -legW, 0, 0))
	if legW > 0 {
		leg.Top, leg.Left = true, true
		leg.XOffs, leg.YOffs = 0, 0
		leg.Draw(draw.Crop(dc, width+pad, -pad, pad, -pad))
	}
	_, err = c.WriteTo(w)
	return err
}

// engineColours gives each relay the same colour in every figure (and the
// same as report.html's); direct paths are black, the reference.
var engineColours = map[string]color.Color{
	"direct":    color.RGBA{0, 0, 0, 255},
	"goroutine": color.RGBA{0x1b, 0x78, 0x37, 255},
	"epoll":     color.RGBA{0xd9, 0x5f, 0x02, 255},
	"splice":    color.RGBA{0x75, 0x70, 0xb3, 255},
	"sockmap":   color.RGBA{0xc5, 0x1b, 0x7d, 255},
	"socat":     color.RGBA{0x4d, 0x92, 0x21, 255},
	"haproxy":   color.RGBA{0xb8, 0x86, 0x0b, 255},
}

// styleOf is a series' colour, from the engine its name starts with (the
// i-th of plotutil's otherwise), and its dashes: a UNIX client leg
// dashed, a TCP one solid.
func styleOf(name string, i int) (color.Color, []vg.Length) {
	words := strings.Fields(name)
	c := plotutil.Color(i)
	if len(words) > 0 {
		if e, ok := engineColours[words[0]]; ok {
			c = e
		}
	}
	var dashes []vg.Length
	if len(words) > 1 && strings.HasPrefix(words[1], "unix") {
		dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return c, dashes
}

func check(kind string, n int) error {
	if n == 0 {
		return fmt.Errorf("plot: %s: no data", kind)
	}
	return nil
}

// Spectrum draws latency against percentile, one line per series (X in
// percent, 0 to 100; Y in microseconds). The percentile axis is 1/(1-q) on
// a log scale, so 90%, 99%, 99.9% are equally spaced and the tail gets the
// room it needs, as HdrHistogram's plotter draws it; the latency axis is
// logarithmic too, so that a 20 µs median and a 4 ms stall both read.
func Spectrum(w io.Writer, format, title string, series []Line) error {
	if err := check("spectrum", len(series)); err != nil {
		return err
	}
	p := newPlot(title, "percentile", "round trip (µs)")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = percentileTicks{}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	for i, s := range series {
		xy := s.points(func(x, y float64) (plotter.XY, bool) {
			q := min(x, maxPercentile)
			return plotter.XY{X: 1 / (1 - q/100), Y: y}, !(q < 0 || math.IsNaN(y) || y <= 0)
		})
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("plot: spectrum %q: %w", s.Name, err)
		}
		l.Color, l.Dashes = styleOf(s.Name, i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.Name, l)
	}
	return write(w, p, format, height)
}

// maxPercentile caps the percentile axis: the 100th percentile (the
// maximum) is at infinity on it.
const maxPercentile = 99.9999

// percentileTicks labels the 1/(1-q) axis in percentiles.
type percentileTicks struct{}

func (percentileTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	labels := []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%"}
	for i, v := 0, 1.0; i < len(labels) && v <= hi*1.0001; i, v = i+1, v*10 {
		if v >= lo/1.0001 {
			ticks = append(ticks, plot.Tick{Value: v, Label: labels[i]})
		}
	}
	if hi >= 2 && lo <= 2 {
		ticks = append(ticks, plot.Tick{Value: 2, Label: "50%"})
	}
	return ticks
}

// Added draws one horizontal bar per path with its confidence interval:
// what each path adds over its direct baseline.
func Added(w io.Writer, format, title, unit string, bars []Bar) error {
	if err := check("added", len(bars)); err != nil {
		return err
	}
	p := newPlot(title, unit, "path")
	vals := make(plotter.Values, len(bars))
	errs := ciBars{}
	names := make([]string, len(bars))
	for i, b := range bars {
		vals[i] = b.Value
		names[i] = b.Name
		errs.xy = append(errs.xy, plotter.XY{X: b.Value, Y: float64(i)})
		errs.err = append(errs.err, [2]float64{b.Value - b.Lo, b.Hi - b.Value})
	}
	bc, err := plotter.NewBarChart(vals, vg.Points(14))
	if err != nil {
		return fmt.Errorf("plot: added: %w", err)
	}
	bc.Horizontal = true
	bc.Color = plotutil.Color(0)
	eb, err := plotter.NewXErrorBars(errs)
	if err != nil {
		return fmt.Errorf("plot: added: %w", err)
	}
	p.Add(bc, eb, plotter.NewGrid())
	p.NominalY(names...)
	h := max(height, vg.Length(len(bars))*vg.Points(22)+vg.Inch)
	return write(w, p, format, h)
}

// Stack is one bar made of named parts, such as a hop's added latency
// split into what it is made of. A negative part (a residual below zero)
// is drawn from zero leftwards.
type Stack struct {
	Name  string
	Parts []float64 // in the order of the parts' names
}

// Stacked draws one horizontal bar per stack, its parts stacked and named
// in the legend.
func Stacked(w io.Writer, format, title, unit string, parts []string, stacks []Stack) error {
	if err := check("stacked", len(stacks)); err != nil {
		return err
	}
	for _, s := range stacks {
		if len(s.Parts) != len(parts) {
			return fmt.Errorf("plot: stacked: %s has %d parts, want %d", s.Name, len(s.Parts), len(parts))
		}
	}
	p := newPlot(title, unit, "")
	names := make([]string, len(stacks))
	for i, s := range stacks {
		names[i] = s.Name
	}
	// Positive parts stack on each other from zero rightwards; negative
	// ones from zero leftwards, so a negative residual shows as itself.
	var pos, neg *plotter.BarChart
	for j, part := range parts {
		up, down := make(plotter.Values, len(stacks)), make(plotter.Values, len(stacks))
		for i, s := range stacks {
			if v := s.Parts[j]; v >= 0 {
				up[i] = v
			} else {
				down[i] = v
			}
		}
		for _, half := range []struct {
			vals plotter.Values
			on   **plotter.BarChart
		}{{up, &pos}, {down, &neg}} {
			bc, err := plotter.NewBarChart(half.vals, vg.Points(14))
			if err != nil {
				return fmt.Errorf("plot: stacked: %w", err)
			}
			bc.Horizontal = true
			bc.Color = plotutil.Color(j)
			bc.LineStyle.Width = 0
			if *half.on != nil {
				bc.StackOn(*half.on)
			}
			*half.on = bc
			p.Add(bc)
			if half.on == &pos {
				p.Legend.Add(part, bc)
			}
		}
	}
	p.Add(plotter.NewGrid())
	p.Y.Label.Text = "path"
	p.NominalY(names...)
	h := max(height, vg.Length(len(stacks))*vg.Points(22)+vg.Inch)
	return write(w, p, format, h)
}

type ciBars struct {
	xy  plotter.XYs
	err [][2]float64
}

func (c ciBars) Len() int                        { return len(c.xy) }
func (c ciBars) XY(i int) (float64, float64)     { return c.xy[i].X, c.xy[i].Y }
func (c ciBars) XError(i int) (float64, float64) { return c.err[i][0], c.err[i][1] }

// newPlot is a plot with its title and axis labels.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	return p
}

// Lines draws one line with points per series, such as throughput against
// threads or overhead against service time. logX puts X on a log scale
// (thread counts 1, 2, 4, … 128); it needs every X above zero.
func Lines(w io.Writer, format, title, xLabel, yLabel string, logX bool, series []Line) error {
	if err := check("lines", len(series)); err != nil {
		return err
	}
	p := newPlot(title, xLabel, yLabel)
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	for i, s := range series {
		xy := s.points(func(x, y float64) (plotter.XY, bool) {
			return plotter.XY{X: x, Y: y}, !(logX && x <= 0)
		})
		if len(xy) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("plot: %q: %w", s.Name, err)
		}
		l.Color, l.Dashes = styleOf(s.Name, i)
		pts.Color = l.Color
		pts.Shape = plotutil.Shape(i)
		p.Add(l, pts)
		p.Legend.Add(s.Name, l, pts)
	}
	// Heights are compared as ratios (twice the throughput, half the
	// overhead): the axis starts at zero.
	p.Y.Min = min(p.Y.Min, 0)
	return write(w, p, format, height)
}

// Fits draws each fit's points and its line across their X range.
func Fits(w io.Writer, format, title, xLabel, yLabel string, fits []Fit) error {
	if err := check("fits", len(fits)); err != nil {
		return err
	}
	p := newPlot(title, xLabel, yLabel)
	p.Add(plotter.NewGrid())
	for i, f := range fits {
		if len(f.X) == 0 {
			continue
		}
		pts := make(plotter.XYs, len(f.X))
		lo, hi := math.Inf(1), math.Inf(-1)
		for j := range f.X {
			pts[j] = plotter.XY{X: f.X[j], Y: f.Y[j]}
			lo, hi = min(lo, f.X[j]), max(hi, f.X[j])
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return fmt.Errorf("plot: fit %q: %w", f.Name, err)
		}
		s.Color, _ = styleOf(f.Name, i)
		s.Shape = plotutil.Shape(i)
		line, err := plotter.NewLine(plotter.XYs{{X: lo, Y: f.Intercept + f.Slope*lo}, {X: hi, Y: f.Intercept + f.Slope*hi}})
		if err != nil {
			return fmt.Errorf("plot: fit %q: %w", f.Name, err)
		}
		line.Color, line.Dashes = styleOf(f.Name, i)
		p.Add(s, line)
		p.Legend.Add(strings.TrimSpace(fmt.Sprintf("%s: %.1f µs/hop", f.Name, f.Slope)), s, line)
	}
	p.Y.Min = min(p.Y.Min, 0) // the intercept and the slope read against zero
	p.X.Min = min(p.X.Min, 0)
	return write(w, p, format, height)
}
