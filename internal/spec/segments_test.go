package spec

import (
	"slices"
	"strings"
	"testing"
)

func TestSegmentRangeOverlaps(t *testing.T) {
	tests := []struct {
		name  string
		spec  string
		lines []int  // lines reported, in order
		want  string // part of the first message
	}{
		{
			name: "siteless range overlaps a site's own range",
			spec: `segment_ranges:
  - {name: all-vni, network_type: vxlan, minimum: 1000, maximum: 1999}
  - {name: a11-vni, site: a11, network_type: vxlan, minimum: 1500, maximum: 2500}
`,
			lines: []int{3},
			want:  "overlaps segment range all-vni (1000-1999, declared at ranges.yaml:2:5) of the same site a11 (a range without a site applies to every site) and network_type vxlan",
		},
		{
			name: "site range first, siteless range overlapping it",
			spec: `segment_ranges:
  - {name: b22-vlans, site: b22, network_type: vlan, physical_network: p1, minimum: 100, maximum: 199}
  - {name: all-vlans, network_type: vlan, physical_network: p1, minimum: 150, maximum: 160}
`,
			lines: []int{3},
			want:  "overlaps segment range b22-vlans (100-199",
		},
		{
			name: "a siteless range overlapping two sites is reported for each",
			spec: `segment_ranges:
  - {name: all-vni, network_type: vxlan, minimum: 1000, maximum: 1999}
  - {name: a11-vni, site: a11, network_type: vxlan, minimum: 1000, maximum: 1100}
  - {name: b22-vni, site: b22, network_type: vxlan, minimum: 1000, maximum: 1100}
`,
			lines: []int{2, 2},
			want:  "overlaps segment range a11-vni (1000-1100, declared at ranges.yaml:3:5) of the same site a11",
		},
		{
			name: "two siteless ranges are reported once",
			spec: `segment_ranges:
  - {name: x, network_type: vxlan, minimum: 1, maximum: 100}
  - {name: y, network_type: vxlan, minimum: 50, maximum: 150}
  - {name: a11-vni, site: a11, network_type: vxlan, minimum: 500, maximum: 600}
`,
			lines: []int{3},
			want:  "of the same every site (neither names a site) and network_type vxlan",
		},
		{
			name: "ranges of different sites never meet",
			spec: `segment_ranges:
  - {name: a11-vni, site: a11, network_type: vxlan, minimum: 1, maximum: 100}
  - {name: b22-vni, site: b22, network_type: vxlan, minimum: 1, maximum: 100}
`,
		},
		{
			name: "a siteless range on another physical network is no overlap",
			spec: `segment_ranges:
  - {name: all-p2, network_type: vlan, physical_network: p2, minimum: 100, maximum: 199}
  - {name: a11-p1, site: a11, network_type: vlan, physical_network: p1, minimum: 100, maximum: 199}
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, diags := Parse("ranges.yaml", []byte(tt.spec), "static:test")
			if len(diags) > 0 {
				t.Fatalf("parse: %v", diags)
			}
			diags = Validate(objs)
			var lines []int
			for _, d := range diags {
				lines = append(lines, d.Line)
			}
			if !slices.Equal(lines, tt.lines) {
				t.Fatalf("reported lines %v, want %v:\n%v", lines, tt.lines, diags)
			}
			if tt.want != "" && !strings.Contains(diags[0].Message, tt.want) {
				t.Errorf("message %q\nwant it to contain %q", diags[0].Message, tt.want)
			}
		})
	}
}
