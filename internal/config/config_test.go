package config

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		wantErr string // a fragment the error must contain; "" means valid
	}{
		{name: "empty file is all defaults", doc: ""},
		{name: "full", doc: `
spec: {name: deploy, paths: [examples/]}
nautobot: {url: https://nautobot.example.com, api_version: "2.3"}
allowed_hosts: [nautobot.example.com]
sites:
  - name: a11
    namespace: a11
    neutron: {endpoint: "http://127.0.0.1:9696", auth: noauth}
`},
		{name: "unknown field", doc: "spec: {nmae: x}\n", wantErr: "line 1"},
		{name: "bad mode", doc: "policy: {mode: mirror}\n", wantErr: "policy.mode"},
		{name: "bad url", doc: "nautobot: {url: nautobot.example.com}\n", wantErr: "nautobot.url"},
		{name: "duplicate site", doc: "sites: [{name: a, neutron: {endpoint: x}}, {name: a, neutron: {endpoint: x}}]\n", wantErr: "declared twice"},
		{name: "noauth needs endpoint", doc: "sites: [{name: a}]\n", wantErr: "neutron.endpoint"},
		{name: "bad auth", doc: "sites: [{name: a, neutron: {auth: password}}]\n", wantErr: "neutron.auth"},
		{name: "owner name with colon", doc: "spec: {name: 'a:b'}\n", wantErr: "spec.name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Parse() = %v, want no error", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Parse() = %v, want an error mentioning %q", err, tt.wantErr)
			}
		})
	}
}

func TestWriteAllowed(t *testing.T) {
	c := Default()
	c.AllowedHosts = []string{"nautobot.example.com", "127.0.0.1:8080"}
	tests := []struct {
		url string
		ok  bool
	}{
		{"https://nautobot.example.com/", true},
		{"https://NAUTOBOT.example.com:8443", true},
		{"http://127.0.0.1:8080", true},
		{"http://127.0.0.1:9090", false},
		{"https://nautobot.prod.example.com", false},
	}
	for _, tt := range tests {
		if err := c.WriteAllowed(tt.url); (err == nil) != tt.ok {
			t.Errorf("WriteAllowed(%q) = %v, want allowed=%v", tt.url, err, tt.ok)
		}
	}
}
