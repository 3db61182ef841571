package page

import (
	"fmt"
	"math"
	"strings"
)

// Colours are fixed per relay, so that an engine is the same colour in
// every figure of the page (and in present/plot's files); direct paths are
// black, the reference every other line is read against.
var relayColour = map[string]string{
	"none":      "#000000",
	"goroutine": "#1b7837",
	"epoll":     "#d95f02",
	"splice":    "#7570b3",
	"sockmap":   "#c51b7d",
	"socat":     "#4d9221",
	"haproxy":   "#b8860b",
}

func colourOf(relay string) string {
	if c, ok := relayColour[relay]; ok {
		return c
	}
	return "#555555"
}

// part is one segment kind of a hop's split: its name, fill colour and the
// pattern that tells it apart without colour.
type part struct {
	name, short, fill, pattern string
}

var parts = []part{
	{"relay code", "code", "#4575b4", "p-code"},
	{"wake-ups", "wake", "#fdae61", "p-wake"},
	{"kernel legs", "kernel", "#74add1", "p-kernel"},
	{"endpoints", "ends", "#d73027", "p-ends"},
	{"mean excess (off)", "excess", "#999999", "p-excess"},
	{"residual", "resid", "#e0e0e0", "p-resid"},
}

// patternDefs is an SVG holding every part's pattern, once per page; the
// bars refer to them by id. Each pattern is its colour with a mark of its
// own (stripes, dots, cross-hatch), so a grey print still tells them apart.
func patternDefs() string {
	marks := []string{
		`<path d="M0,6 L6,0" stroke="#fff" stroke-width="1.5"/>`,
		`<circle cx="3" cy="3" r="1.2" fill="#000"/>`,
		`<path d="M0,3 L6,3" stroke="#000" stroke-width="1"/>`,
		`<path d="M0,0 L6,6 M0,6 L6,0" stroke="#fff" stroke-width="1"/>`,
		`<path d="M3,0 L3,6" stroke="#000" stroke-width="1"/>`,
		``,
	}
	var b strings.Builder
	b.WriteString(`<svg class="defs" width="0" height="0" aria-hidden="true" xmlns="http://www.w3.org/2000/svg"><defs>`)
	for i, p := range parts {
		fmt.Fprintf(&b, `<pattern id="%s" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="%s"/>%s</pattern>`, p.pattern, p.fill, marks[i])
	}
	b.WriteString(`</defs></svg>`)
	return b.String()
}

// swatch is a small square of a part's pattern, for legends.
func swatch(p part) string {
	return fmt.Sprintf(`<svg class="swatch" width="14" height="14" viewBox="0 0 14 14" xmlns="http://www.w3.org/2000/svg" aria-hidden="true"><rect width="14" height="14" fill="url(#%s)" stroke="#000" stroke-width="0.5"/></svg>`, p.pattern)
}

// stackBar draws values (one per part, negative ones leftwards from zero)
// on a scale from lo to hi µs, with a tick at zero. The bar is a fixed
// viewBox stretched to its cell.
func stackBar(values []float64, lo, hi float64, title string) string {
	const w, h = 240.0, 16.0
	if !finite(append(values, lo, hi)...) {
		return ""
	}
	if hi <= lo {
		hi = lo + 1
	}
	x := func(v float64) float64 { return (v - lo) / (hi - lo) * w }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="bar" viewBox="0 0 %g %g" preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg" role="img"><title>%s</title>`, w, h, esc(title))
	pos, neg := 0.0, 0.0
	for i, v := range values {
		var a, z float64
		if v >= 0 {
			a, z = pos, pos+v
			pos = z
		} else {
			a, z = neg+v, neg
			neg = a
		}
		if z-a <= 0 {
			continue
		}
		fmt.Fprintf(&b, `<rect x="%.2f" y="1" width="%.2f" height="%g" fill="url(#%s)" stroke="#000" stroke-width="0.4"/>`, x(a), x(z)-x(a), h-2, parts[i].pattern)
	}
	fmt.Fprintf(&b, `<line x1="%.2f" y1="0" x2="%.2f" y2="%g" stroke="#000" stroke-width="1"/>`, x(0), x(0), h)
	b.WriteString(`</svg>`)
	return b.String()
}

// plainBar is a hop with no split: one outlined bar of its added p50.
func plainBar(v, lo, hi float64, title string) string {
	const w, h = 240.0, 16.0
	if !finite(v, lo, hi) {
		return ""
	}
	if hi <= lo {
		hi = lo + 1
	}
	x := func(v float64) float64 { return (v - lo) / (hi - lo) * w }
	a, z := min(x(0), x(v)), max(x(0), x(v))
	return fmt.Sprintf(`<svg class="bar" viewBox="0 0 %g %g" preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg" role="img"><title>%s</title><rect x="%.2f" y="1" width="%.2f" height="%g" fill="#fff" stroke="#000" stroke-width="0.8" stroke-dasharray="3,2"/><line x1="%.2f" y1="0" x2="%.2f" y2="%g" stroke="#000"/></svg>`,
		w, h, esc(title), a, z-a, h-2, x(0), x(0), h)
}

// line is one curve of a figure.
type line struct {
	name   string
	colour string
	dash   string // SVG stroke-dasharray, "" for solid
	width  float64
	x, y   []float64
	marks  bool // a point mark at each value
}

// axis maps data to the figure and labels it.
type axis struct {
	label  string
	lo, hi float64
	log    bool
	ticks  []tick
}

type tick struct {
	v     float64
	label string
}

func (a axis) pos(v float64) float64 {
	if a.log {
		return (math.Log10(v) - math.Log10(a.lo)) / (math.Log10(a.hi) - math.Log10(a.lo))
	}
	return (v - a.lo) / (a.hi - a.lo)
}

// figure draws lines on axes x and y with a legend below the plot (never
// over the data), as an SVG that scales to its container's width.
func figure(title string, x, y axis, lines []line) string {
	const W, H = 560.0, 300.0
	const left, right, top, bottom = 58.0, 12.0, 26.0, 44.0
	pw, ph := W-left-right, H-top-bottom
	legendRows := (len(lines) + 2) / 3
	total := H + float64(legendRows)*16 + 6
	px := func(v float64) float64 { return left + x.pos(v)*pw }
	py := func(v float64) float64 { return top + (1-y.pos(v))*ph }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="fig" viewBox="0 0 %g %g" xmlns="http://www.w3.org/2000/svg" role="img"><title>%s</title>`, W, total, esc(title))
	fmt.Fprintf(&b, `<text x="%g" y="16" class="ft">%s</text>`, left, esc(title))
	fmt.Fprintf(&b, `<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#000" stroke-width="0.8"/>`, left, top, pw, ph)
	if !finite(x.pos(x.lo), x.pos(x.hi), y.pos(y.lo), y.pos(y.hi)) {
		x.ticks, y.ticks, lines = nil, nil, nil
	}
	for _, t := range x.ticks {
		if t.v < x.lo || t.v > x.hi {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#ddd"/>`, px(t.v), top, px(t.v), top+ph)
		fmt.Fprintf(&b, `<text x="%.1f" y="%g" class="tk" text-anchor="middle">%s</text>`, px(t.v), top+ph+14, esc(t.label))
	}
	for _, t := range y.ticks {
		if t.v < y.lo || t.v > y.hi {
			continue
		}
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#ddd"/>`, left, py(t.v), left+pw, py(t.v))
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" class="tk" text-anchor="end">%s</text>`, left-4, py(t.v)+4, esc(t.label))
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" class="al" text-anchor="middle">%s</text>`, left+pw/2, top+ph+32, esc(x.label))
	fmt.Fprintf(&b, `<text x="12" y="%g" class="al" text-anchor="middle" transform="rotate(-90 12 %g)">%s</text>`, top+ph/2, top+ph/2, esc(y.label))
	for _, l := range lines {
		var pts []string
		for i := range l.x {
			if (x.log && l.x[i] <= 0) || (y.log && l.y[i] <= 0) || math.IsNaN(l.y[i]) {
				continue
			}
			cx, cy := px(clamp(l.x[i], x)), py(clamp(l.y[i], y))
			if !finite(cx, cy) {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", cx, cy))
		}
		if len(pts) == 0 {
			continue
		}
		dash := ""
		if l.dash != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, l.dash)
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="%g"%s/>`, strings.Join(pts, " "), l.colour, l.width, dash)
		if l.marks {
			for _, p := range pts {
				xy := strings.Split(p, ",")
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="2.5" fill="%s"/>`, xy[0], xy[1], l.colour)
			}
		}
	}
	for i, l := range lines {
		col, row := i%3, i/3
		lx, ly := left+float64(col)*(pw/3), H+float64(row)*16
		dash := ""
		if l.dash != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, l.dash)
		}
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="%g"%s/>`, lx, ly, lx+18, ly, l.colour, max(l.width, 1.5), dash)
		fmt.Fprintf(&b, `<text x="%g" y="%g" class="lg">%s</text>`, lx+22, ly+4, esc(l.name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func clamp(v float64, a axis) float64 { return min(max(v, a.lo), a.hi) }

// finite is whether every v is a float a figure can place.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e15 {
			return false
		}
	}
	return true
}

// maxTicks bounds the tick loops, whatever the data.
const maxTicks = 40

// linearTicks is about five round ticks from 0 (or lo) to hi.
func linearTicks(lo, hi float64, unit string) []tick {
	if hi <= lo || !finite(lo, hi) {
		return nil
	}
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(step*m) <= 6 {
			step *= m
			break
		}
	}
	var out []tick
	for v := math.Ceil(lo/step) * step; v <= hi*1.0001 && len(out) < maxTicks; v += step {
		out = append(out, tick{v, trim(v) + unit})
	}
	return out
}

// logTicks is 1, 2, 5 times each power of ten within lo..hi, or the
// powers alone over more than two decades.
func logTicks(lo, hi float64) []tick {
	if lo <= 0 || hi <= lo || !finite(lo, hi) {
		return nil
	}
	var out []tick
	ms := []float64{1, 2, 5}
	if hi/lo > 1000 {
		ms = ms[:1]
	}
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)) && len(out) < maxTicks; e++ {
		for _, m := range ms {
			v := m * math.Pow(10, e)
			if v >= lo && v <= hi {
				out = append(out, tick{v, trim(v)})
			}
		}
	}
	return out
}

func trim(v float64) string {
	s := fmt.Sprintf("%.3g", v)
	if math.Abs(v) >= 1000 {
		s = fmt.Sprintf("%.0f", v)
	}
	return s
}

// xmlChar is whether XML 1.0 allows r in a document (its Char production).
func xmlChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// esc escapes text for XML content and attributes alike.
func esc(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#39;")
		default:
			if !xmlChar(r) {
				continue // XML has no way to write it
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}
