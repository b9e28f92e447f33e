package nautobot

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/nautobot/emulator"
	"github.com/ipsync/ipsync/internal/nautobot/emulator/emulatortest"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

func TestBootstrapIsIdempotent(t *testing.T) {
	tests := []struct {
		name    string
		servers func(*testing.T, func(*testing.T, *servertest.Server))
		wantCTs int // content types of the owner field
	}{
		{"with the bgp plugin", servertest.Each, 6},
		{"without it", func(t *testing.T, fn func(*testing.T, *servertest.Server)) {
			fn(t, servertest.Emulator(t, emulator.WithoutBGP()))
		}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.servers(t, func(t *testing.T, srv *servertest.Server) {
				e := newEnvOn(t, srv, nil, true)
				ctx := context.Background()
				want := []string{`tag "managed-by-ipsync"`, `custom field "ipsync_owner"`, `custom field "vni"`}
				if got, err := e.c.BootstrapPlan(ctx); err != nil || !slices.Equal(got, want) {
					t.Fatalf("BootstrapPlan = %q, %v; want %q", got, err, want)
				}
				if n := e.srv.Requests("POST", "/"); n != 0 {
					t.Fatalf("BootstrapPlan wrote %d times", n)
				}
				got, err := e.c.Bootstrap(ctx)
				if err != nil || !slices.Equal(got, want) {
					t.Fatalf("first Bootstrap = %q, %v; want %q", got, err, want)
				}
				e.srv.ResetCounts()
				if got, err := e.c.Bootstrap(ctx); err != nil || len(got) != 0 {
					t.Errorf("second Bootstrap = %q, %v; want nothing done", got, err)
				}
				if n := e.srv.Requests("POST", "/") + e.srv.Requests("PATCH", "/"); n != 0 {
					t.Errorf("second Bootstrap wrote %d times", n)
				}
				for _, cf := range e.srv.Objects(t, "extras.customfield") {
					if cf["key"] == "ipsync_owner" && len(cf["content_types"].([]any)) != tt.wantCTs {
						t.Errorf("owner field content types = %v, want %d", cf["content_types"], tt.wantCTs)
					}
				}
			})
		})
	}
}

func TestBootstrapAddsMissingContentTypes(t *testing.T) {
	servertest.Each(t, bootstrapAddsMissingContentTypes)
}

func bootstrapAddsMissingContentTypes(t *testing.T, srv *servertest.Server) {
	e := newEnvOn(t, srv, nil, true)
	if err := sot.Write(context.Background(), e.c.do, &httpapi.Tally{}, "POST", pathTags, map[string]any{"name": "managed-by-ipsync", "content_types": []string{"ipam.vlan"}}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := e.c.Bootstrap(context.Background())
	want := `content types ipam.namespace, ipam.vlangroup, ipam.prefix, ipam.ipaddress, nautobot_bgp_models.autonomoussystem of tag "managed-by-ipsync"`
	if err != nil || len(got) != 3 || got[0] != want {
		t.Errorf("Bootstrap with a tag from before = %q, %v", got, err)
	}
}

func TestApplyRefusesWithoutMarker(t *testing.T) { servertest.Each(t, applyRefusesWithoutMarker) }

func applyRefusesWithoutMarker(t *testing.T, srv *servertest.Server) {
	e := newEnvOn(t, srv, nil, true)
	res, err := e.c.Apply(context.Background(), creates(&resource.Namespace{M: meta(), Name: "n"}))
	if err == nil || !strings.Contains(err.Error(), "run ipsync bootstrap") {
		t.Errorf("Apply before bootstrap: %v, want a refusal naming bootstrap", err)
	}
	if res.Writes != 0 || e.srv.Count(t, "ipam.namespace") != 1 {
		t.Errorf("Apply before bootstrap wrote %d requests", res.Writes)
	}
}

func TestNames(t *testing.T) { servertest.Each(t, names) }

func names(t *testing.T, srv *servertest.Server) {
	e := newEnvOn(t, srv, nil, false)
	e.srv.Seed(t, emulator.SeedData{Statuses: []string{"Staged"}})
	names, err := e.c.Names(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct {
		kind resource.Kind
		name string
	}{{resource.RefLocation, "a11"}, {resource.RefStatus, "Active"}, {resource.RefStatus, "Staged"}, {resource.RefRole, "tenant-net"}, {resource.RefTenant, "acme"}} {
		if !names[want.kind][want.name] {
			t.Errorf("Names()[%s] lacks %q: %v", want.kind, want.name, names[want.kind])
		}
	}
}

func TestScope(t *testing.T) { servertest.Each(t, readScope) }

func readScope(t *testing.T, srv *servertest.Server) {
	e := newEnvOn(t, srv, nil, false)
	ctx := context.Background()
	objs := []resource.Object{
		&resource.Namespace{M: meta(), Name: "a"}, &resource.Namespace{M: meta(), Name: "b", Location: "a12"},
		&resource.VLANGroup{M: meta(), Name: "ga"}, &resource.VLANGroup{M: meta(), Name: "gb"},
		&resource.VLAN{M: meta(), Group: "ga", VID: 1, Name: "x", Status: "Active"},
		&resource.VLAN{M: meta(), Group: "gb", VID: 1, Name: "x", Status: "Active"},
		&resource.Prefix{M: meta(), Namespace: "a", Prefix: pfx("10.0.0.0/24"), Status: "Active", VLAN: "gb/1"},
		&resource.Prefix{M: meta(), Namespace: "b", Prefix: pfx("10.0.0.0/24"), Status: "Active", Locations: []string{"a12"}},
		&resource.IPAddress{M: meta(), Namespace: "a", Address: pfx("10.0.0.1/24"), Status: "Active"},
		&resource.IPAddress{M: meta(), Namespace: "b", Address: pfx("10.0.0.1/24"), Status: "Active"},
	}
	if _, err := e.c.Apply(ctx, creates(objs...)); err != nil {
		t.Fatal(err)
	}
	keys := func(s scope.Scope) []string {
		got, err := e.c.List(ctx, s)
		if err != nil {
			t.Fatalf("List(%+v): %v", s, err)
		}
		var out []string
		for _, o := range got {
			if o.Kind() != resource.KindNamespace || o.Key().Name != "Global" {
				out = append(out, o.Key().String())
			}
		}
		slices.Sort(out)
		return out
	}
	tests := []struct {
		scope scope.Scope
		want  string
	}{
		{scope.Scope{Namespaces: []string{"a"}, Kinds: []resource.Kind{resource.KindNamespace, resource.KindPrefix, resource.KindIPAddress}},
			"ip_address a/10.0.0.1,namespace a,prefix a/10.0.0.0/24"},
		// Every VLAN group is read: a site's physical network not in its
		// physnet_groups maps to the group of its own name.
		{scope.Scope{VLANGroups: []string{"gb"}, Kinds: []resource.Kind{resource.KindVLANGroup, resource.KindVLAN}}, "vlan gb/1,vlan_group ga,vlan_group gb"},
		{scope.Scope{Namespaces: []string{"nowhere"}, Kinds: []resource.Kind{resource.KindPrefix}}, ""},
		{scope.Scope{Locations: []string{"a12"}, Kinds: []resource.Kind{resource.KindNamespace, resource.KindPrefix}}, "namespace b,prefix b/10.0.0.0/24"},
		// An owner sees what it marked outside the narrowing, and only that.
		{scope.Scope{VLANGroups: []string{"ga"}, Owner: owner, Kinds: []resource.Kind{resource.KindVLANGroup, resource.KindVLAN}},
			"vlan ga/1,vlan gb/1,vlan_group ga,vlan_group gb"},
		{scope.Scope{VLANGroups: []string{"ga"}, Owner: "static:other", Kinds: []resource.Kind{resource.KindVLANGroup, resource.KindVLAN}},
			"vlan ga/1,vlan_group ga,vlan_group gb"},
		{scope.Scope{Namespaces: []string{"nowhere"}, Owner: owner, Kinds: []resource.Kind{resource.KindIPAddress}},
			"ip_address a/10.0.0.1,ip_address b/10.0.0.1"},
		// The prefix's VLAN is outside the scope's kinds and still named.
		{scope.Scope{Namespaces: []string{"a"}, Kinds: []resource.Kind{resource.KindPrefix}}, "prefix a/10.0.0.0/24"},
	}
	for _, tt := range tests {
		if got := strings.Join(keys(tt.scope), ","); got != tt.want {
			t.Errorf("List(%+v) = %s, want %s", tt.scope, got, tt.want)
		}
	}
	got, _ := e.c.List(ctx, scope.Scope{Namespaces: []string{"a"}, Kinds: []resource.Kind{resource.KindPrefix}})
	if p := got[0].(*resource.Prefix); p.VLAN != "gb/1" {
		t.Errorf("prefix VLAN = %q, want gb/1 resolved outside the scope", p.VLAN)
	}
	if _, err := e.c.List(ctx, scope.Scope{Kinds: []resource.Kind{resource.KindSegmentRange}}); err == nil {
		t.Errorf("List of segment ranges succeeded")
	}
}

func TestUnmarkedObjectsHaveNoOwner(t *testing.T) { servertest.Each(t, unmarkedObjectsHaveNoOwner) }

func unmarkedObjectsHaveNoOwner(t *testing.T, srv *servertest.Server) {
	e := newEnvOn(t, srv, nil, false)
	ctx := context.Background()
	if _, err := e.c.Apply(ctx, creates(&resource.Namespace{M: meta(), Name: "n"})); err != nil {
		t.Fatal(err)
	}
	// Someone strips the tag by hand; the custom field alone is no marker.
	id := e.srv.Objects(t, "ipam.namespace")[1]["id"].(string)
	cur, _ := e.c.List(ctx, scope.Scope{Kinds: []resource.Kind{resource.KindNamespace}})
	ns := byKey(cur)[resource.Key{Kind: resource.KindNamespace, Name: "n"}]
	if ns.Meta().ID != id {
		t.Fatalf("namespace n has id %s, want %s", ns.Meta().ID, id)
	}
	r, err := e.c.Apply(ctx, []plan.Change{{Action: plan.Update, Key: ns.Key(), Desired: ns, Current: ns}})
	if err != nil || r.Written != 1 {
		t.Fatal(err)
	}
	stripTags(t, e, id)
	cur, _ = e.c.List(ctx, scope.Scope{Kinds: []resource.Kind{resource.KindNamespace}})
	if o := byKey(cur)[ns.Key()].Meta().Owner; o != "" {
		t.Errorf("owner of an untagged object = %q, want none", o)
	}
}

func stripTags(t *testing.T, e *env, id string) {
	t.Helper()
	c, err := New(Config{Settings: sot.Settings{URL: e.srv.URL(), Token: e.srv.Token()}}, nil, sot.WithHTTPClient(e.srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	if err := sot.Write(context.Background(), c.do, &httpapi.Tally{}, "PATCH", "/api/ipam/namespaces/"+id+"/", map[string]any{"tags": []any{}}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestTLSVerification(t *testing.T) {
	srv := emulator.NewServer(emulator.WithTLS())
	defer srv.Close()
	for _, insecure := range []bool{false, true} {
		c, err := New(Config{Settings: sot.Settings{URL: srv.URL(), Token: emulator.DefaultToken, InsecureSkipVerify: insecure, MaxRetries: -1}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Names(context.Background())
		if insecure != (err == nil) {
			t.Errorf("InsecureSkipVerify=%v against a self-signed server: err = %v", insecure, err)
		}
	}
}

func TestTokenIsNeverLogged(t *testing.T) {
	var logs bytes.Buffer
	srv := emulatortest.NewServer(emulator.WithToken("s3cr3t-token"))
	defer srv.Close()
	c, err := New(Config{Settings: sot.Settings{URL: srv.URL(), Token: "s3cr3t-token", MaxRetries: 2}}, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		sot.WithHTTPClient(srv.Client()), sot.WithClock(clocktest.NewInstant(clocktest.Start)))
	if err != nil {
		t.Fatal(err)
	}
	srv.Inject(emulatortest.Fault{Status: 503})
	_, err = c.List(context.Background(), scope.Scope{})
	if err == nil {
		t.Fatal("List against a failing server succeeded")
	}
	if strings.Contains(logs.String()+err.Error(), "s3cr3t") || logs.Len() == 0 {
		t.Errorf("token in logs or error, or nothing logged:\n%s\n%v", logs.String(), err)
	}
}

func TestConfig(t *testing.T) {
	tests := []struct {
		cfg     Config
		wantErr string
	}{
		{Config{Settings: sot.Settings{URL: "nautobot.example.com", Token: "t"}}, "want http(s)://host"},
		{Config{Settings: sot.Settings{URL: "https://nautobot.example.com"}}, "token is empty"},
		{Config{Settings: sot.Settings{URL: "https://nautobot.example.com", Token: "t"}, APIVersion: "2.1"}, "at least 2.2"},
		{Config{Settings: sot.Settings{URL: "https://nautobot.example.com", Token: "t"}, APIVersion: "3.1"}, ""},
	}
	for _, tt := range tests {
		_, err := New(tt.cfg, nil)
		if (tt.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("New(%+v) error = %v, want %q", tt.cfg, err, tt.wantErr)
		}
	}
}

func TestLocationsOnEveryLine(t *testing.T) {
	for _, version := range []string{"2.4", "3.1"} {
		for _, api := range []string{"", "2.2", "2.4"} {
			e := newEnv(t, func(c *Config) { c.APIVersion = api }, false, emulator.WithVersion(version))
			p := &resource.Prefix{M: meta(), Namespace: "Global", Prefix: pfx("10.0.0.0/24"), Status: "Active", Locations: []string{"a11", "a12"}}
			if _, err := e.c.Apply(context.Background(), creates(p)); err != nil {
				t.Fatalf("server %s api %q: %v", version, api, err)
			}
			got, err := e.c.List(context.Background(), scope.Scope{Kinds: []resource.Kind{resource.KindPrefix}})
			if err != nil {
				t.Fatalf("server %s api %q: %v", version, api, err)
			}
			if loc := got[0].(*resource.Prefix).Locations; !slices.Equal(loc, []string{"a11", "a12"}) {
				t.Errorf("server %s api %q: locations %v", version, api, loc)
			}
		}
	}
}
