package netbox

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

// TestBootstrapIdempotent bootstraps an empty NetBox: the plan names what
// is missing, Bootstrap creates it, and then nothing is left to do. An
// Apply before it is refused before any write, saying to bootstrap.
func TestBootstrapIdempotent(t *testing.T) {
	e := realEnv(t, nil, true)
	ctx := context.Background()
	vlan := &resource.VLANGroup{M: meta(), Name: "early"}
	if _, err := e.c.Apply(ctx, creates(vlan)); err == nil || !strings.Contains(err.Error(), "run ipsync bootstrap first") {
		t.Errorf("Apply before bootstrap = %v, want a refusal saying to bootstrap", err)
	}
	if n := e.s.Requests("POST", "/api/ipam/"); n != 0 {
		t.Errorf("Apply before bootstrap sent %d writes, want none", n)
	}
	want := []string{`tag "managed-by-ipsync"`, `custom field "ipsync_owner"`, `custom field "vni"`}
	for _, step := range []struct {
		name string
		run  func(context.Context) ([]string, error)
		want []string
	}{
		{"plan", e.c.BootstrapPlan, want},
		{"plan again", e.c.BootstrapPlan, want},
		{"bootstrap", e.c.Bootstrap, want},
		{"plan after", e.c.BootstrapPlan, nil},
		{"bootstrap again", e.c.Bootstrap, nil},
	} {
		got, err := step.run(ctx)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if !slices.Equal(got, step.want) {
			t.Errorf("%s = %q, want %q", step.name, got, step.want)
		}
	}
	if n := e.s.Count(t, "extras.customfield"); n != 2 {
		t.Errorf("netbox holds %d custom fields, want 2", n)
	}
	// A custom field narrowed by hand is extended, not duplicated.
	id := e.s.ID(t, "extras.customfield", "ipsync_owner")
	e.call("PATCH", "/api/extras/custom-fields/"+itoa(id)+"/", map[string]any{"object_types": []string{"ipam.vlan"}}, nil)
	got, err := e.c.Bootstrap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "object types ipam.vrf, ipam.vlangroup, ipam.prefix") {
		t.Errorf("Bootstrap after a narrowing = %q, want the object types it added", got)
	}
	if _, err := e.c.Apply(ctx, creates(vlan)); err != nil {
		t.Errorf("Apply after bootstrap: %v", err)
	}
}
