package svgchart

import (
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// parsed is what a chart's markup holds, read back as XML.
type parsed struct {
	elements map[string]int // element name → how many
	texts    []string       // character data of <text> and <title>
	attrs    []string       // every attribute value
}

func parse(t *testing.T, svg string) parsed {
	t.Helper()
	p := parsed{elements: map[string]int{}}
	d := xml.NewDecoder(strings.NewReader(svg))
	var stack []string
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("chart is not well-formed XML: %v\n%s", err, svg)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if len(stack) == 0 && (tok.Name.Local != "svg" || tok.Name.Space != "http://www.w3.org/2000/svg") {
				t.Fatalf("root element is %v, want svg in the SVG namespace", tok.Name)
			}
			stack = append(stack, tok.Name.Local)
			p.elements[tok.Name.Local]++
			for _, a := range tok.Attr {
				p.attrs = append(p.attrs, a.Value)
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if n := len(stack); n > 0 && (stack[n-1] == "text" || stack[n-1] == "title") {
				p.texts = append(p.texts, string(tok))
			}
		}
	}
	return p
}

func TestSVG(t *testing.T) {
	tests := []struct {
		name  string
		chart Chart
		// elements counts some elements exactly.
		elements map[string]int
		texts    []string // among the texts
	}{
		{
			name:     "empty",
			chart:    Chart{Title: "sync duration", Unit: "s", Slots: 72},
			elements: map[string]int{"rect": 0, "polyline": 0, "circle": 0},
			texts:    []string{"sync duration", "0s", "1s"},
		},
		{
			name:     "no slots",
			chart:    Chart{Title: "nothing"},
			elements: map[string]int{"rect": 0},
			texts:    []string{"nothing"},
		},
		{
			name: "bars",
			chart: Chart{Title: "writes", Slots: 4, XTicks: []Tick{{0, "10:00"}, {2, "11:00"}, {9, "off the axis"}},
				Bars: []Bar{{Slot: 0, Value: 3, Tip: "10:00: 3 writes"}, {Slot: 1, Value: 0}, {Slot: 3, Value: 17, Marked: true}, {Slot: 7, Value: 5}}},
			elements: map[string]int{"rect": 3},
			texts:    []string{"writes", "10:00", "11:00", "10:00: 3 writes", "0", "5", "20"},
		},
		{
			name: "lines",
			chart: Chart{Title: "drift", Slots: 10, Lines: []Line{
				{Name: "vlan", Points: []Point{{Slot: 1, Value: 2}, {Slot: 5, Value: 0}, {Slot: 6, Value: 4, Tip: "10:30: 4 VLANs"}}},
				{Name: "prefix", Points: []Point{{Slot: 3, Value: 0.5}}},
				{Name: "nowhere", Points: []Point{{Slot: -1, Value: 1}}},
			}},
			elements: map[string]int{"polyline": 2, "circle": 4},
			texts:    []string{"vlan", "prefix", "nowhere", "vlan: 2", "10:30: 4 VLANs", "prefix: 0.5"},
		},
		{
			name: "escaped",
			chart: Chart{Title: `<script>alert("x")</script> & co`, Unit: `"u'`, Slots: 2, XTicks: []Tick{{0, "<b>"}},
				Bars:  []Bar{{Slot: 0, Value: 1, Tip: "a</title><script>"}},
				Lines: []Line{{Name: "]]><x>", Points: []Point{{Slot: 1, Value: 1}}}}},
			elements: map[string]int{"script": 0, "b": 0, "x": 0, "rect": 1},
			texts:    []string{`<script>alert("x")</script> & co`, "<b>", "a</title><script>", "]]><x>", `1"u'`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svg := string(tt.chart.SVG())
			p := parse(t, svg)
			// The legend's swatches are rects too.
			for el, want := range tt.elements {
				got := p.elements[el]
				if el == "rect" {
					got -= len(tt.chart.Lines)
				}
				if got != want {
					t.Errorf("%d <%s>, want %d:\n%s", got, el, want, svg)
				}
			}
			for _, want := range tt.texts {
				if !slices.Contains(p.texts, want) {
					t.Errorf("no text %q among %q", want, p.texts)
				}
			}
			if strings.Contains(svg, "NaN") || strings.Contains(svg, "Inf") {
				t.Errorf("a coordinate is not a number:\n%s", svg)
			}
		})
	}
}

// TestBarsScale: the tallest bar reaches the top tick, a bar half its
// value half as high, and a zero still shows as a hairline.
func TestBarsScale(t *testing.T) {
	svg := string(Chart{Slots: 3, Height: 122, Bars: []Bar{{Slot: 0, Value: 10}, {Slot: 1, Value: 5}, {Slot: 2, Value: 0}}}.SVG())
	// 122 high less the margins (22 above, 22 below): a plot 78 high.
	for _, want := range []string{`height="78"`, `height="39"`, `height="1"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("bars lack %s:\n%s", want, svg)
		}
	}
}

func TestYTicks(t *testing.T) {
	tests := []struct {
		max    float64
		counts bool
		want   []float64
	}{
		{0, false, []float64{0, 0.5, 1}},
		{-3, false, []float64{0, 0.5, 1}},
		{1, false, []float64{0, 0.5, 1}},
		{3, false, []float64{0, 1, 2, 3}},
		{7, false, []float64{0, 2, 4, 6, 8}},
		{10, false, []float64{0, 5, 10}},
		{17, false, []float64{0, 5, 10, 15, 20}},
		{0.3, false, []float64{0, 0.1, 0.2, 0.3}},
		{1234, false, []float64{0, 500, 1000, 1500}},
		{50000, false, []float64{0, 20000, 40000, 60000}},
		{0, true, []float64{0, 1}},
		{1, true, []float64{0, 1}},
		{3, true, []float64{0, 1, 2, 3}},
		{7, true, []float64{0, 2, 4, 6, 8}},
		{0.4, true, []float64{0, 1}},
	}
	for _, tt := range tests {
		if got := yTicks(tt.max, tt.counts); !slices.Equal(got, tt.want) {
			t.Errorf("yTicks(%v, %v) = %v, want %v", tt.max, tt.counts, got, tt.want)
		}
	}
}
