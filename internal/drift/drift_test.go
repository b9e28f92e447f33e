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
	if err := r.WriteHTML(&page, ""); err != nil {
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
