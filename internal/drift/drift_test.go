package drift

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

func samplePlan() *plan.Plan {
	me := resource.Owner("neutron:a11")
	desired := []resource.Object{
		&resource.VLAN{M: resource.Meta{Owner: me}, Group: "a11-12-network", VID: 100, Name: "new"},
		&resource.VLAN{M: resource.Meta{Owner: me}, Group: "a11-12-network", VID: 101, Name: "tenant-<b>"},
		&resource.VLAN{M: resource.Meta{Owner: me}, Group: "a11-12-network", VID: 102, Name: "taken"},
	}
	current := []resource.Object{
		&resource.VLAN{M: resource.Meta{Owner: me}, Group: "a11-12-network", VID: 101, Name: "old"},
		&resource.VLAN{M: resource.Meta{Owner: me}, Group: "a11-12-network", VID: 199, Name: "gone"},
		&resource.VLAN{Group: "a11-12-network", VID: 102, Name: "taken"},
	}
	return plan.Make(desired, current, plan.DefaultPolicy(me))
}

func TestFromPlan(t *testing.T) {
	o := FromPlan(samplePlan(), []Leak{{Kind: "segment", Key: "seg-1", Message: "VLAN segment with no ports"}})
	got := map[string]string{}
	for _, it := range o.Items {
		got[it.Key] = it.Drift
	}
	want := map[string]string{"a11-12-network/100": "missing", "a11-12-network/101": "different", "a11-12-network/199": "extra", "a11-12-network/102": "unmarked"}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("drift of %s = %q, want %q", k, got[k], w)
		}
	}
	if n := o.ByKind()[resource.KindVLAN]["missing"]; n != 1 {
		t.Errorf("ByKind missing = %d, want 1", n)
	}
}

func TestRenderings(t *testing.T) {
	r := &Report{GeneratedAt: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC), Target: "https://nautobot.example.com",
		Owners: []Owner{FromPlan(samplePlan(), nil), {Owner: "neutron:b22", Error: "neutron: connection refused"}}}
	var text, js, page bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(&page, HTML{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"missing   vlan a11-12-network/100", `name: "old" -> "tenant-<b>"`, "neutron:b22: NOT CHECKED: neutron: connection refused"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Owners) != 2 {
		t.Errorf("JSON report does not decode: %v", err)
	}
	if strings.Contains(page.String(), "<b>") || !strings.Contains(page.String(), "tenant-&lt;b&gt;") {
		t.Errorf("HTML report does not escape object names")
	}
	if !strings.Contains(page.String(), "4 objects drift, 0 leaks") || strings.Contains(page.String(), "1 objects") {
		t.Errorf("HTML report counts read badly:\n%s", page.String())
	}
	if strings.Contains(page.String(), "<script") {
		t.Errorf("HTML report must work without JavaScript")
	}
}

// TestWritten: once a plan is written, its report shows the objects in
// agreement, not the counts the plan started from.
func TestWritten(t *testing.T) {
	me := resource.Owner("neutron:a11")
	desired := []resource.Object{
		&resource.VLAN{M: resource.Meta{Owner: me}, Group: "g", VID: 100, Name: "new"},
		&resource.VLAN{M: resource.Meta{Owner: me}, Group: "g", VID: 101, Name: "renamed"},
		&resource.VLAN{M: resource.Meta{Owner: me}, Group: "g", VID: 102, Name: "same"},
	}
	current := []resource.Object{
		&resource.VLAN{M: resource.Meta{Owner: me}, Group: "g", VID: 101, Name: "old"},
		&resource.VLAN{M: resource.Meta{Owner: me}, Group: "g", VID: 102, Name: "same"},
		&resource.VLAN{M: resource.Meta{Owner: me}, Group: "g", VID: 199, Name: "gone"},
	}
	leaks := []Leak{{Kind: "segment", Key: "seg-1", Message: "VLAN segment with no ports"}}
	before := FromPlan(plan.Make(desired, current, plan.DefaultPolicy(me)), leaks)
	got := before.Written()
	want := []plan.SummaryRow{{Kind: resource.KindVLAN, Noop: 3}}
	if len(got.Summary) != 1 || got.Summary[0] != want[0] {
		t.Errorf("summary after the write = %+v, want %+v", got.Summary, want)
	}
	if len(got.Items) != 0 || len(got.Leaks) != 1 {
		t.Errorf("after the write: %d items, %d leaks; want none and the leak", len(got.Items), len(got.Leaks))
	}
	if r := before.Summary[0]; r.Create != 1 || r.Update != 1 || r.Delete != 1 || len(before.Items) != 3 {
		t.Errorf("Written changed the report it was called on: %+v, %d items", r, len(before.Items))
	}
}
