// Package svgchart draws small charts as inline SVG markup, for pages that
// run no scripts and fetch nothing: bars and lines over a row of evenly
// spaced slots (time steps), a y axis with round ticks, labels on the x
// axis, and a tooltip per bar from the SVG's own <title>.
package svgchart

import (
	"encoding/xml"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// Chart is one chart. Slots are the x positions, left to right; Bars and
// Lines place their values on them.
type Chart struct {
	// Title is drawn above the plot and names the chart to screen readers.
	Title string
	// Unit follows the y axis' tick values ("s").
	Unit string
	// Counts says the values are whole numbers, so are the y ticks.
	Counts bool
	Slots  int
	XTicks []Tick
	Bars   []Bar
	Lines  []Line
	// Width and Height are the whole chart's, in pixels (default 720×150).
	Width, Height int
}

// Tick is a label under the x axis at a slot.
type Tick struct {
	Slot int
	Text string
}

// Bar is one slot's bar. Marked bars are drawn in the alert colour.
type Bar struct {
	Slot   int
	Value  float64
	Marked bool
	// Tip is shown when the pointer rests on the bar.
	Tip string
}

// Line is a named series, drawn through its points in slot order, with a
// legend entry.
type Line struct {
	Name   string
	Points []Point
}

// Point is a line's value at a slot. Tip is shown when the pointer rests
// on it (default: the line's name and the value).
type Point struct {
	Slot  int
	Value float64
	Tip   string
}

// Colours: bars, marked bars, then the lines' in turn. Picked to stay
// apart for the common kinds of colour blindness.
const (
	barColour    = "#4a78b5"
	markedColour = "#c0392b"
	axisColour   = "#888"
	textColour   = "#333"
)

var lineColours = []string{"#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#999999"}

// lineDashes tell apart lines that lie on one another (two kinds with the
// same count), the first one solid and widest.
var lineDashes = []string{"", "6 3", "2 2", "8 3 2 3"}

// Margins around the plot, for the title, the y ticks' labels and the x
// ticks' labels.
const (
	marginTop    = 22
	marginLeft   = 56
	marginRight  = 12
	marginBottom = 22
	legendHeight = 16
)

// SVG is the chart's markup. Every text in it is escaped, so it may go
// into a page as is.
func (c Chart) SVG() template.HTML {
	w, h := c.Width, c.Height
	if w <= 0 {
		w = 720
	}
	if h <= 0 {
		h = 150
	}
	top := marginTop
	if len(c.Lines) > 0 {
		top += legendHeight
	}
	plotW, plotH := float64(w-marginLeft-marginRight), float64(h-top-marginBottom)
	slots := max(c.Slots, 1)
	slotW := plotW / float64(slots)
	ticks := yTicks(c.maxValue(), c.Counts)
	top0 := ticks[len(ticks)-1]
	x := func(slot int) float64 { return float64(marginLeft) + (float64(slot)+0.5)*slotW }
	y := func(v float64) float64 { return float64(top) + plotH*(1-v/top0) }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s" font-family="system-ui, sans-serif" font-size="11">`,
		w, h, w, h, escape(c.Title))
	fmt.Fprintf(&b, `<title>%s</title>`, escape(c.Title))
	fmt.Fprintf(&b, `<text x="%d" y="14" font-size="12" font-weight="bold" fill="%s">%s</text>`, marginLeft, textColour, escape(c.Title))
	// Legend: one swatch and name per line.
	lx := float64(marginLeft)
	for i, l := range c.Lines {
		col := lineColours[i%len(lineColours)]
		fmt.Fprintf(&b, `<rect x="%s" y="%d" width="10" height="10" fill="%s"/><text x="%s" y="%d" fill="%s">%s</text>`,
			num(lx), marginTop-4, col, num(lx+14), marginTop+5, textColour, escape(l.Name))
		lx += 14 + 7*float64(len([]rune(l.Name))) + 16
	}
	// Y axis: grid lines and their values.
	for _, t := range ticks {
		ty := y(t)
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%s" y2="%s" stroke="#e3e3e3"/>`, marginLeft, num(ty), num(float64(marginLeft)+plotW), num(ty))
		fmt.Fprintf(&b, `<text x="%d" y="%s" text-anchor="end" fill="%s">%s</text>`, marginLeft-4, num(ty+4), textColour, escape(label(t, c.Unit)))
	}
	bottom := float64(top) + plotH
	fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, marginLeft, num(bottom), num(float64(marginLeft)+plotW), num(bottom), axisColour)
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%s" stroke="%s"/>`, marginLeft, top, marginLeft, num(bottom), axisColour)
	for _, t := range c.XTicks {
		if t.Slot < 0 || t.Slot >= slots {
			continue
		}
		tx := x(t.Slot)
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s"/>`, num(tx), num(bottom), num(tx), num(bottom+4), axisColour)
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" fill="%s">%s</text>`, num(tx), num(bottom+15), textColour, escape(t.Text))
	}
	barW := math.Max(1, slotW*0.8)
	for _, bar := range c.Bars {
		if bar.Slot < 0 || bar.Slot >= slots || !(bar.Value >= 0) {
			continue
		}
		col := barColour
		if bar.Marked {
			col = markedColour
		}
		by := y(bar.Value)
		// A bar of zero is a hairline: the slot had something, of no size.
		bh := math.Max(bottom-by, 1)
		fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s">`, num(x(bar.Slot)-barW/2), num(bottom-bh), num(barW), num(bh), col)
		if bar.Tip != "" {
			fmt.Fprintf(&b, `<title>%s</title>`, escape(bar.Tip))
		}
		b.WriteString(`</rect>`)
	}
	for i, l := range c.Lines {
		col := lineColours[i%len(lineColours)]
		var pts, dots strings.Builder
		for _, p := range l.Points {
			if p.Slot < 0 || p.Slot >= slots || !(p.Value >= 0) {
				continue
			}
			px, py := num(x(p.Slot)), num(y(p.Value))
			if pts.Len() > 0 {
				pts.WriteByte(' ')
			}
			pts.WriteString(px + "," + py)
			tip := p.Tip
			if tip == "" {
				tip = l.Name + ": " + label(p.Value, c.Unit)
			}
			// A lone point draws no line; its dot still shows.
			fmt.Fprintf(&dots, `<circle cx="%s" cy="%s" r="2.5" fill="%s"><title>%s</title></circle>`, px, py, col, escape(tip))
		}
		if pts.Len() == 0 {
			continue
		}
		dash := ""
		if d := lineDashes[i%len(lineDashes)]; d != "" {
			dash = ` stroke-dasharray="` + d + `"`
		}
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="%d"%s/>`, pts.String(), col, max(3-i, 1), dash)
		b.WriteString(dots.String())
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// maxValue is the largest value drawn.
func (c Chart) maxValue() float64 {
	m := 0.0
	for _, b := range c.Bars {
		if b.Value > m {
			m = b.Value
		}
	}
	for _, l := range c.Lines {
		for _, p := range l.Points {
			if p.Value > m {
				m = p.Value
			}
		}
	}
	return m
}

// yTicks are round values from 0 to at least m: 0 and up to four steps of
// 1, 2 or 5 times a power of ten, whole numbers for counts. With nothing
// to draw the axis still goes to 1, so an empty chart has a scale.
func yTicks(m float64, counts bool) []float64 {
	if !(m > 0) || math.IsInf(m, 0) {
		m = 1
	}
	raw := m / 4
	if counts {
		raw = max(raw, 1)
	}
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	step := pow
	for _, f := range []float64{1, 2, 5, 10} {
		if f*pow >= raw {
			step = f * pow
			break
		}
	}
	// Rounded to the step's decimals, so that 3×0.1 reads 0.3, not
	// 0.30000000000000004.
	scale := math.Pow(10, math.Max(0, -math.Floor(math.Log10(step))))
	ticks := []float64{0}
	for i := 1; ; i++ {
		v := math.Round(float64(i)*step*scale) / scale
		ticks = append(ticks, v)
		if v >= m {
			return ticks
		}
	}
}

func label(v float64, unit string) string {
	return strconv.FormatFloat(v, 'f', -1, 64) + unit
}

// num is a coordinate, to a tenth of a pixel.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

func escape(s string) string {
	var b strings.Builder
	// It escapes quotes too, so the result fits attributes as well.
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}
