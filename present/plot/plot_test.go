package plot

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

func spectrumData() []Line {
	return []Line{
		{Name: "direct tcp", X: []float64{0, 50, 90, 99, 99.9, 100}, Y: []float64{20, 25, 28, 40, 80, 120}},
		{Name: "epoll tcp->tcp", X: []float64{0, 50, 90, 99, 99.9, 100}, Y: []float64{55, 62, 70, 95, 160, 300}},
	}
}

// Every figure renders to a non-empty PNG and an SVG that names its data.
func TestFiguresRender(t *testing.T) {
	figures := []struct {
		name string
		draw func(b *bytes.Buffer, format string) error
		text string // a string the SVG must contain
	}{
		{"spectrum", func(b *bytes.Buffer, f string) error { return Spectrum(b, f, "Latency by percentile", spectrumData()) }, "99.9%"},
		{"added", func(b *bytes.Buffer, f string) error {
			return Added(b, f, "Added p50", "µs", []Bar{{"epoll tcp->tcp", 37, 35, 39}, {"socat tcp->tcp", 52, 48, 56}})
		}, "socat tcp-&gt;tcp"},
		{"lines", func(b *bytes.Buffer, f string) error {
			return Lines(b, f, "Throughput", "threads", "requests/s", true, []Line{{Name: "direct tcp", X: []float64{1, 2, 4, 8}, Y: []float64{40000, 70000, 80000, 79000}}})
		}, "Throughput"},
		{"fits", func(b *bytes.Buffer, f string) error {
			return Fits(b, f, "Chains", "hops", "µs", []Fit{{Name: "epoll tcp", X: []float64{0, 1, 2, 3}, Y: []float64{25, 66, 104, 146}, Slope: 40, Intercept: 25.2}})
		}, "epoll tcp: 40.0 µs/hop"},
		{"stacked", func(b *bytes.Buffer, f string) error {
			return Stacked(b, f, "Where the added p50 goes", "µs", []string{"relay code", "wake-ups", "kernel legs", "residual"},
				[]Stack{{"epoll tcp->tcp packed", []float64{5, 2, 3, 1}}, {"epoll tcp->tcp spread", []float64{6, 158, 3, -17}}})
		}, "kernel legs"},
	}
	for _, fig := range figures {
		t.Run(fig.name, func(t *testing.T) {
			var png, svg bytes.Buffer
			if err := fig.draw(&png, "png"); err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(png.Bytes(), pngMagic) || png.Len() < 1000 {
				t.Errorf("png: %d bytes, prefix %q", png.Len(), png.Bytes()[:min(8, png.Len())])
			}
			if err := fig.draw(&svg, "svg"); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(svg.String(), "<svg") || !strings.Contains(svg.String(), fig.text) {
				t.Errorf("svg lacks %q", fig.text)
			}
		})
	}
}

func TestFiguresRefuse(t *testing.T) {
	if err := Stacked(io.Discard, "svg", "t", "µs", []string{"a", "b"}, []Stack{{"x", []float64{1}}}); err == nil {
		t.Error("a stack with a part missing drew")
	}
	var b bytes.Buffer
	if err := Spectrum(&b, "png", "x", nil); err == nil {
		t.Error("empty spectrum drawn")
	}
	if err := Added(&b, "png", "x", "µs", nil); err == nil {
		t.Error("empty bar chart drawn")
	}
	if err := Spectrum(&b, "gif", "x", spectrumData()); err == nil || !strings.Contains(err.Error(), `"gif"`) {
		t.Errorf("gif: %v", err)
	}
}

// The percentile axis labels sit at 1/(1-q): 90% at 10, 99% at 100.
func TestPercentileTicks(t *testing.T) {
	ticks := percentileTicks{}.Ticks(1, 1000)
	got := map[float64]string{}
	for _, tk := range ticks {
		got[tk.Value] = tk.Label
	}
	for v, want := range map[float64]string{1: "0%", 2: "50%", 10: "90%", 100: "99%", 1000: "99.9%"} {
		if got[v] != want {
			t.Errorf("tick at %v = %q, want %q", v, got[v], want)
		}
	}
	if _, ok := got[10000]; ok {
		t.Error("tick beyond the axis")
	}
}

// svgText finds the x of the text s in a figure's SVG.
func svgTextX(svg, s string) (float64, bool) {
	re := regexp.MustCompile(`<text x="([0-9.]+)"[^>]*\n?[^>]*>` + regexp.QuoteMeta(s) + `</text>`)
	m := re.FindStringSubmatch(svg)
	if m == nil {
		return 0, false
	}
	x, err := strconv.ParseFloat(m[1], 64)
	return x, err == nil
}

// Legends stand right of the plot, never over its data; heights read as
// ratios start at zero; an engine has one colour in every figure.
func TestFiguresReadAtAGlance(t *testing.T) {
	var lines, spectrum, fits bytes.Buffer
	if err := Lines(&lines, "svg", "p50 by threads", "client threads", "p50 round trip (µs)", true,
		[]Line{{Name: "epoll tcp->tcp", X: []float64{1, 2, 4}, Y: []float64{100, 150, 200}}, {Name: "direct unix", X: []float64{1, 2, 4}, Y: []float64{90, 120, 160}}}); err != nil {
		t.Fatal(err)
	}
	if err := Spectrum(&spectrum, "svg", "spectrum", spectrumData()); err != nil {
		t.Fatal(err)
	}
	if err := Fits(&fits, "svg", "chains", "relay hops", "p50 round trip (µs)", []Fit{{Name: "epoll tcp", X: []float64{1, 2, 3}, Y: []float64{66, 104, 146}, Slope: 40, Intercept: 25}}); err != nil {
		t.Fatal(err)
	}
	plotWidth := float64(width.Points())
	for name, svg := range map[string]string{"lines": lines.String(), "spectrum": spectrum.String()} {
		x, ok := svgTextX(svg, "epoll tcp-&gt;tcp")
		if !ok || x <= plotWidth {
			t.Errorf("%s: legend entry at x %v (found %v), want right of the plot's %v pt", name, x, ok, plotWidth)
		}
		if !strings.Contains(svg, "stroke:#D95F02") {
			t.Errorf("%s: epoll not drawn in its colour", name)
		}
	}
	if _, ok := svgTextX(lines.String(), "0"); !ok {
		t.Error("lines: the y axis does not start at 0")
	}
	if _, ok := svgTextX(fits.String(), "0"); !ok {
		t.Error("fits: the axes do not start at 0")
	}
	if !strings.Contains(lines.String(), "stroke-dasharray") {
		t.Error("lines: the UNIX client leg is not dashed")
	}
}
