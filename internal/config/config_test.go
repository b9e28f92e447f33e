package config

import (
	"os"
	"path/filepath"
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
		{name: "unknown field", doc: "spec: {nmae: x}\n", wantErr: `config:1:8: spec.nmae: unknown field; did you mean "name"?`},
		{name: "typo of a nested field", doc: "nautobot:\n  url: https://nb.example.com\n  tokn: /etc/t\n", wantErr: `config:3:3: nautobot.tokn: unknown field; did you mean "token_file"?`},
		{name: "no suggestion lists the fields", doc: "agent: {colour: red}\n", wantErr: "agent.colour: unknown field (allowed: listen, interval,"},
		{name: "a secret in the config", doc: "nautobot: {token: abc}\n", wantErr: "config:1:12: nautobot.token: unknown field; the Nautobot token is never in the config: set IPSYNC_NAUTOBOT_TOKEN or token_file"},
		{name: "unknown top-level field", doc: "sites: []\nallowed_host: [x]\n", wantErr: `config:2:1: allowed_host: unknown field; did you mean "allowed_hosts"?`},
		{name: "wrong type", doc: "nautobot:\n  page_size: lots\n", wantErr: `config:2:14: nautobot.page_size: must be a whole number, got text "lots"`},
		{name: "duration without unit", doc: "agent: {interval: 600}\n", wantErr: "config:1:19: agent.interval: must be a duration like 30s, 10m or 1h, got number 600"},
		{name: "bad duration", doc: "agent: {interval: 10 minutes}\n", wantErr: `agent.interval: "10 minutes" is not a duration`},
		{name: "list expected", doc: "allowed_hosts: nautobot.example.com\n", wantErr: `config:1:16: allowed_hosts: must be a list, got text`},
		{name: "problem in a list item", doc: "sites:\n  - name: a\n    neutron: {endpoint: x, auth: password}\n", wantErr: `config:3:34: sites[0].neutron.auth: "password": want noauth or keystone`},
		{name: "missing field placed at its parent", doc: "sites:\n  - name: a\n", wantErr: "config:2:5: sites[0].neutron.endpoint: required with auth noauth"},
		{name: "syntax error", doc: "spec:\n  name: \"x\n", wantErr: "YAML syntax error"},
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

func TestSiteNotFound(t *testing.T) {
	c := Default()
	if _, err := c.Site("a11"); err == nil || !strings.Contains(err.Error(), "declares no sites") || strings.Contains(err.Error(), "()") {
		t.Errorf("Site in a config without sites = %v", err)
	}
	c.Sites = []Site{{Name: "a11"}, {Name: "b22"}}
	if _, err := c.Site("a12"); err == nil || !strings.Contains(err.Error(), `(its sites: a11, b22); did you mean "a11"?`) {
		t.Errorf("Site(a12) = %v", err)
	}
}

// TestLoadResolvesPathsFromTheConfigFile: every relative path in the config
// means the same wherever ipsync is run from.
func TestLoadResolvesPathsFromTheConfigFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ipsync.yaml")
	doc := "spec: {paths: [specs/, /abs/spec.yaml]}\nnautobot: {token_file: secrets/token}\nagent: {state_dir: state, rabbitmq: {password_file: rabbit.pw}}\n"
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ field, got, want string }{
		{"spec.paths[0]", c.SpecPaths()[0], filepath.Join(dir, "specs")},
		{"spec.paths[1]", c.SpecPaths()[1], "/abs/spec.yaml"},
		{"nautobot.token_file", c.Nautobot.TokenFile, filepath.Join(dir, "secrets/token")},
		{"agent.state_dir", c.Agent.StateDir, filepath.Join(dir, "state")},
		{"agent.rabbitmq.password_file", c.Agent.RabbitMQ.PasswordFile, filepath.Join(dir, "rabbit.pw")},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.field, tt.got, tt.want)
		}
	}
}

func TestLoadNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ipsync.yaml")
	if err := os.WriteFile(path, []byte("nautobot:\n  tokn: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+":2:3: nautobot.tokn: ") || strings.Contains(err.Error(), "config.Nautobot") {
		t.Errorf("Load = %v, want file:line:col: field: message without Go type names", err)
	}
}
