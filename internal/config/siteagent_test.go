package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSiteAgentSections: several sites' agents run on one host from one
// file, each with what its own agent key sets over the file's agent
// section.
func TestSiteAgentSections(t *testing.T) {
	doc := `
agent:
  listen: 127.0.0.1:9478
  interval: 5m
  rabbitmq: {url: "amqp://ipsync@rabbitmq.shared.example.net/", exchange: neutron, queue: shared}
sites:
  - name: a11
    neutron: {endpoint: "http://127.0.0.1:9696"}
    agent:
      listen: 127.0.0.1:9481
      rabbitmq: {url: "amqp://ipsync@rabbitmq.a11.example.net/"}
  - name: a12
    neutron: {endpoint: "http://127.0.0.1:9697"}
`
	c, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	a11, a12 := c.AgentFor(&c.Sites[0]), c.AgentFor(&c.Sites[1])
	for _, tt := range []struct{ field, got, want string }{
		{"a11 listen", a11.Listen, "127.0.0.1:9481"},
		{"a11 rabbitmq.url", a11.RabbitMQ.URL, "amqp://ipsync@rabbitmq.a11.example.net/"},
		{"a11 rabbitmq.queue (the file's)", a11.RabbitMQ.Queue, "shared"},
		{"a11 rabbitmq.exchange (the file's)", a11.RabbitMQ.Exchange, "neutron"},
		{"a11 interval (the file's)", a11.Interval.String(), (5 * time.Minute).String()},
		{"a11 lease_ttl (the default)", a11.LeaseTTL.String(), (2 * time.Minute).String()},
		{"a12 listen (the file's)", a12.Listen, "127.0.0.1:9478"},
		{"a12 rabbitmq.url (the file's)", a12.RabbitMQ.URL, "amqp://ipsync@rabbitmq.shared.example.net/"},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.field, tt.got, tt.want)
		}
	}
	if c.Agent.Listen != "127.0.0.1:9478" {
		t.Errorf("a site's agent section changed the file's: listen %q", c.Agent.Listen)
	}
}

func TestSiteAgentProblems(t *testing.T) {
	tests := []struct {
		name, doc, wantErr string
	}{
		{name: "unknown key in a site's agent", doc: "sites:\n  - name: a\n    neutron: {endpoint: x}\n    agent: {lisen: ':1'}\n",
			wantErr: `config:4:13: sites[0].agent.lisen: unknown field; did you mean "listen"?`},
		{name: "lease timing checked as laid over the file's", doc: "agent: {lease_renew: 40s}\nsites:\n  - name: a\n    neutron: {endpoint: x}\n    agent:\n      lease_ttl: 100s\n",
			wantErr: "config:6:18: sites[0].agent.lease_ttl: 1m40s is less than 3 × agent.lease_renew (40s)"},
		{name: "sweep shorter than a site's interval", doc: "sites:\n  - name: a\n    neutron: {endpoint: x}\n    agent: {interval: 48h}\n",
			wantErr: "sites[0].agent.sweep: 24h0m0s is shorter than agent.interval (48h0m0s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestCredentialsDirectory: under systemd's DynamicUser the token file
// root keeps at 0600 is handed over by LoadCredential= into a directory
// named by $CREDENTIALS_DIRECTORY, which the config names as
// ${CREDENTIALS_DIRECTORY}.
func TestCredentialsDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ipsync.yaml")
	doc := `nautobot: {url: "https://nautobot.example.com", token_file: "${CREDENTIALS_DIRECTORY}/ipsync_nautobot-token"}
agent: {rabbitmq: {password_file: "${CREDENTIALS_DIRECTORY}/ipsync_rabbitmq-password"}, state_dir: "${STATE_DIRECTORY}/agents"}
sites:
  - name: a11
    neutron: {endpoint: x}
    agent: {rabbitmq: {password_file: "${CREDENTIALS_DIRECTORY}/ipsync_rabbitmq-a11"}}
spec: {paths: ["$literal/spec"]}
`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CREDENTIALS_DIRECTORY", "/run/credentials/ipsync-agent@a11.service")
	t.Setenv("STATE_DIRECTORY", "/var/lib/ipsync")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ field, got, want string }{
		{"nautobot.token_file", c.Nautobot.TokenFile, "/run/credentials/ipsync-agent@a11.service/ipsync_nautobot-token"},
		{"agent.rabbitmq.password_file", c.Agent.RabbitMQ.PasswordFile, "/run/credentials/ipsync-agent@a11.service/ipsync_rabbitmq-password"},
		{"agent.state_dir", c.Agent.StateDir, "/var/lib/ipsync/agents"},
		{"sites[0].agent.rabbitmq.password_file", c.AgentFor(&c.Sites[0]).RabbitMQ.PasswordFile, "/run/credentials/ipsync-agent@a11.service/ipsync_rabbitmq-a11"},
		{"sites[0].agent.state_dir (the file's)", c.AgentFor(&c.Sites[0]).StateDir, "/var/lib/ipsync/agents"},
		{"spec.paths[0], a lone $ is itself", c.SpecPaths()[0], filepath.Join(dir, "$literal/spec")},
	} {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.field, tt.got, tt.want)
		}
	}

	t.Setenv("CREDENTIALS_DIRECTORY", "")
	_, err = Load(path)
	want := path + `:1:61: nautobot.token_file: ${CREDENTIALS_DIRECTORY} is not set in the environment (systemd sets it for a service with LoadCredential=`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Load without CREDENTIALS_DIRECTORY = %v, want %q", err, want)
	}
}

// TestEveryProblemInOneRun: a file with a wrong key and a wrong value
// elsewhere names both at once; the user does not fix the first only to
// be told of the second.
func TestEveryProblemInOneRun(t *testing.T) {
	doc := "nautobot:\n  url: nautobot.example.com\n  page_sise: 100\npolicy: {mode: mirror}\nagent:\n  interval: 10 minutes\n  lease_ttl: 1m\nsites:\n  - name: a\n"
	_, err := Parse([]byte(doc))
	if err == nil {
		t.Fatal("Parse accepted a file with five problems")
	}
	got := strings.Split(err.Error(), "\n")
	want := []string{
		"config:2:8: nautobot.url:",
		"config:3:3: nautobot.page_sise: unknown field",
		"config:4:16: policy.mode:",
		`config:6:13: agent.interval: "10 minutes" is not a duration`,
		"config:7:14: agent.lease_ttl: 1m0s is less than 3 × agent.lease_renew",
		"config:9:5: sites[0].neutron.endpoint: required with auth noauth",
	}
	if len(got) != len(want) {
		t.Fatalf("Parse named %d problems, want %d:\n%v", len(got), len(want), err)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d = %q, want it to start %q", i, got[i], want[i])
		}
	}
}

// TestSiteAgentInheritsAProblemOnce: a wrong value of the file's agent
// section, which a site's agent section inherits, is named once, at the
// file's.
func TestSiteAgentInheritsAProblemOnce(t *testing.T) {
	doc := "agent: {lease_ttl: 1m}\nsites:\n  - name: a\n    neutron: {endpoint: x}\n    agent: {listen: ':9481'}\n"
	_, err := Parse([]byte(doc))
	if err == nil || strings.Count(err.Error(), "is less than 3 × agent.lease_renew") != 1 || strings.Contains(err.Error(), "sites[0]") {
		t.Errorf("Parse = %v, want the lease problem once, at agent.lease_ttl", err)
	}
}
