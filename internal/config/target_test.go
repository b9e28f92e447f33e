package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestTarget(t *testing.T) {
	tests := []struct {
		file     string
		wantName string // TargetName of the loaded config
		wantURL  string
	}{
		{"nautobot-section-only.yaml", "Nautobot", "https://nautobot.example.com"},
		{"netbox-section-only.yaml", "NetBox", "https://netbox.example.com"},
		{"netbox.yaml", "NetBox", "https://netbox.example.com"},
		{"both-sections-with-target.yaml", "Nautobot", "https://nautobot.example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, err := Load(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := c.TargetName(); got != tt.wantName {
				t.Errorf("TargetName() = %q, want %q", got, tt.wantName)
			}
			if got := c.TargetURL(); got != tt.wantURL {
				t.Errorf("TargetURL() = %q, want %q", got, tt.wantURL)
			}
		})
	}
}

func TestNetBoxSection(t *testing.T) {
	path := filepath.Join("testdata", "netbox.yaml")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	n := c.NetBox
	for _, tt := range []struct{ field, got, want string }{
		{"token_file", n.TokenFile, filepath.Join("testdata", "secrets/netbox-token")},
		{"rir", n.RIR, "RFC 6996"},
		{"location_scope", n.LocationScope, ScopeLocation},
		{"timeout", n.Timeout.String(), "30s"},
	} {
		if tt.got != tt.want {
			t.Errorf("netbox.%s = %q, want %q", tt.field, tt.got, tt.want)
		}
	}
	if n.PageSize != 500 || n.BatchSize != 100 || n.Concurrency != 2 {
		t.Errorf("netbox sizes = %d/%d/%d, want 500/100/2", n.PageSize, n.BatchSize, n.Concurrency)
	}
	if err := c.WriteAllowed(c.TargetURL()); err != nil {
		t.Errorf("WriteAllowed(netbox.url) = %v, want allowed by allowed_hosts", err)
	}

	d, err := Load(filepath.Join("testdata", "netbox-section-only.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := defaultNetBox(); d.NetBox.RIR != want.RIR || d.NetBox.LocationScope != want.LocationScope || d.NetBox.PageSize != want.PageSize {
		t.Errorf("netbox defaults = %+v, want rir, location_scope and page_size of %+v", d.NetBox, want)
	}
	if err := d.WriteAllowed(d.TargetURL()); err == nil {
		t.Error("WriteAllowed(netbox.url) without allowed_hosts = nil, want refused")
	}
}

func TestTargetErrors(t *testing.T) {
	tests := []struct {
		file    string
		wantErr string // after "testdata/<file>:"
	}{
		{"invalid-both-sections.yaml", "4:1: netbox: the config has both a nautobot section (line 2) and a netbox section: set target: nautobot or target: netbox"},
		{"invalid-target.yaml", `1:9: target: "netbx": want nautobot or netbox; did you mean "netbox"?`},
		{"invalid-location-scope.yaml", `3:19: netbox.location_scope: "sites": want site (spec locations are NetBox sites) or location (NetBox locations); did you mean "site"?`},
		{"invalid-netbox-token.yaml", "3:3: netbox.token: unknown field; the NetBox token is never in the config: set IPSYNC_NETBOX_TOKEN or token_file"},
		{"invalid-netbox-field.yaml", `3:3: netbox.locaton_scope: unknown field; did you mean "location_scope"?`},
		{"invalid-netbox-no-url.yaml", "3:3: netbox.url: required with target netbox"},
		{"invalid-netbox-page-size.yaml", "3:14: netbox.page_size: 5000: NetBox answers at most 1000 objects a page"},
		{"invalid-netbox-url.yaml", `2:8: netbox.url: "netbox.example.com": want http(s)://host[:port]`},
		{"invalid-nautobot-api-url.yaml", `2:8: nautobot.url: "https://nautobot.example.com/api/" ends in /api: give the server's address, "https://nautobot.example.com"; ipsync adds the API's path itself`},
		{"invalid-netbox-api-url.yaml", `3:8: netbox.url: "https://ipam.example.com/netbox/api" ends in /api: give the server's address, "https://ipam.example.com/netbox"`},
		{"invalid-netbox-empty-rir.yaml", "3:8: netbox.rir: want the name of the RIR new ASNs get"},
		{"invalid-netbox-aside.yaml", `5:19: netbox.location_scope: "rack": want site`},
		{"invalid-range-threshold.yaml", "2:20: agent.range_threshold: 80: want a used ratio above 0 and at most 1"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			_, err := Load(path)
			if want := path + ":" + tt.wantErr; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Load(%s) = %v, want an error containing %q", path, err, want)
			}
		})
	}
}
