package drift

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/rangehealth"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestRangesRendered: the ranges at or over the threshold, and only they,
// show in the text report (golden file) and on the page, with their rate
// and forecast where a history gave one.
func TestRangesRendered(t *testing.T) {
	hs := []rangehealth.Health{
		{Usage: rangehealth.Usage{Kind: "vlan", Range: "physnet1:100-200", Size: 101, Used: 50}, UsedRatio: 50.0 / 101, Free: 51},
		{Usage: rangehealth.Usage{Kind: "vlan", Range: "leaf12", Size: 10, Used: 9}, UsedRatio: 0.9, Free: 1, Rated: true, PerDay: 2, Filling: true, FullInSeconds: 43200},
		{Usage: rangehealth.Usage{Kind: rangehealth.KindVLANGroup, Range: "a11-12-network", Size: 50, Used: 50}, UsedRatio: 1, Rated: true},
		{Usage: rangehealth.Usage{Kind: "vxlan", Range: "tenant-vni", Size: 1000, Used: 850}, UsedRatio: 0.85, Free: 150},
	}
	r := &Report{GeneratedAt: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC), Target: "https://nautobot.example.com",
		Owners: []Owner{FromPlan(samplePlan(), nil)}, Ranges: RangesOf("a11", hs, 0.8)}
	var text, page bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "ranges.txt")
	if *update {
		if err := os.WriteFile(golden, text.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if text.String() != string(want) {
		t.Errorf("text report differs from %s (go test -update):\n%s", golden, text.String())
	}
	if err := r.WriteHTML(&page, HTML{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Ranges used 80% or more", "<code>leaf12</code>", "9 (90%)", "in 12 hours", "2.0 a day", "<code>a11-12-network</code>", "not known yet"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page.String(), "physnet1:100-200") {
		t.Errorf("page shows a range under the threshold")
	}
}
