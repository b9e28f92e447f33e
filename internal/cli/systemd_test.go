package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/statefile"
)

const (
	unitFile      = "../../deploy/systemd/ipsync-agent@.service"
	unitConfig    = "../../deploy/systemd/ipsync.yaml"
	unitConfigDir = "/etc/ipsync"
)

// unit is the [Service] section of a systemd unit: each key's values in
// the order written.
type unit map[string][]string

func readUnit(t *testing.T, path string) unit {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u, section := unit{}, ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			section = line
		case section == "[Service]":
			k, v, _ := strings.Cut(line, "=")
			u[k] = append(u[k], v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return u
}

// one is the single value of key, failing t unless there is exactly one.
func (u unit) one(t *testing.T, key string) string {
	t.Helper()
	if len(u[key]) != 1 {
		t.Fatalf("the unit has %d %s= lines, want 1", len(u[key]), key)
	}
	return u[key][0]
}

// TestSystemdUnitVerifies: systemd's own check of the unit finds nothing
// to say: no unknown key, no bad specifier, an ExecStart it can run.
func TestSystemdUnitVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze (Debian's systemd) is needed to check the unit")
	}
	data, err := os.ReadFile(unitFile)
	if err != nil {
		t.Fatal(err)
	}
	bin, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	// An instance of the template, running this test binary: verify
	// wants an executable where ExecStart points.
	dir := t.TempDir()
	inst := filepath.Join(dir, "ipsync-agent@a11.service")
	if err := os.WriteFile(inst, []byte(strings.ReplaceAll(string(data), "/usr/local/bin/ipsync", bin)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", inst).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify %s: %v\n%s", unitFile, err, out)
	}
}

// TestSystemdUnitRunsSeveralSitesOnOneHost runs the unit's ExecStart for
// sites a11 and b22 at once, as systemd runs two instances of the
// template: the shipped config with only its values changed, each
// instance with its own credentials directory (LoadCredential= of the
// root-owned 0600 secrets) and state directory. Each agent listens on
// its own address, reads its token and its RabbitMQ password from its
// credentials, syncs its own Neutron into the target and keeps its state
// in its own directory; a second instance of one site on the host is
// told which key gives it an address of its own. What is tested is the
// unit and the config, not the target: the emulator serves as one, the
// Neutrons and RabbitMQ are real.
func TestSystemdUnitRunsSeveralSitesOnOneHost(t *testing.T) {
	baseA := neutronURL(t)
	baseB := strings.TrimSuffix(os.Getenv("IPSYNC_NEUTRON_URL_B"), "/")
	if baseB == "" {
		t.Skip("set IPSYNC_NEUTRON_URL_B to a second Neutron (NEUTRON_PORT=9697 scripts/neutron-up.sh start) to run")
	}
	u := readUnit(t, unitFile)
	systemdSites(t, nautobotTarget(servertest.Emulator(t)), u, map[string]string{"a11": baseA, "b22": baseB})
}

func systemdSites(t *testing.T, srv *target, u unit, neutrons map[string]string) {
	root := t.TempDir()
	etc := filepath.Join(root, unitConfigDir)
	secrets := filepath.Join(etc, "credentials")
	if err := os.MkdirAll(secrets, 0o700); err != nil {
		t.Fatal(err)
	}
	amqp := os.Getenv("IPSYNC_RABBITMQ_URL")
	secret := map[string]string{"nautobot-token": srv.Token()}
	if amqp != "" {
		secret["rabbitmq-a11"], secret["rabbitmq-b22"] = "guest", "guest"
	}
	for name, v := range secret {
		if err := os.WriteFile(filepath.Join(secrets, name), []byte(v+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// The shipped config, with what the README says to change changed.
	data, err := os.ReadFile(unitConfig)
	if err != nil {
		t.Fatal(err)
	}
	listen := map[string]string{"a11": freeAddr(t), "b22": freeAddr(t)}
	edits := []string{
		"nautobot:", srv.section + ":",
		"https://nautobot.example.com", srv.URL(),
		"allowed_hosts: [nautobot.example.com]", "allowed_hosts: [127.0.0.1]",
		"127.0.0.1:9481", listen["a11"], "127.0.0.1:9482", listen["b22"],
	}
	for site, base := range neutrons {
		edits = append(edits, fmt.Sprintf("{auth: keystone, cloud: %s}", site), fmt.Sprintf("{auth: noauth, endpoint: %q}", base))
		amqpSite := "amqp://ipsync@rabbitmq." + site + ".example.net:5672/"
		if amqp != "" {
			// The URL without its password, which the credential holds.
			edits = append(edits, amqpSite, strings.Replace(amqp, "guest:guest@", "guest@", 1))
		} else {
			edits = append(edits, "url: "+amqpSite, "url: ''", "password_file: ${CREDENTIALS_DIRECTORY}/ipsync_rabbitmq-"+site, "password_file: ''")
		}
	}
	cfgText := string(data)
	for i := 0; i < len(edits); i += 2 {
		if !strings.Contains(cfgText, edits[i]) {
			t.Fatalf("%s no longer holds %q: change this test with it", unitConfig, edits[i])
		}
		cfgText = strings.ReplaceAll(cfgText, edits[i], edits[i+1])
	}
	cfg := filepath.Join(etc, "ipsync.yaml")
	if err := os.WriteFile(cfg, []byte(cfgText), 0o644); err != nil {
		t.Fatal(err)
	}
	// The namespaces the sites' objects go in are the spec's.
	spec := serverConfig(t, srv.section, srv.URL(), srv.Token(), srv.examples(t), "")
	mustRun(t, "bootstrap", "--config", spec, "--commit")
	mustRun(t, "apply", "--config", spec, "--commit")

	// What systemd gives an instance: ExecStart with %i the site, the
	// unit's Environment= with %d its credentials directory, and the
	// directories of LoadCredential= and StateDirectory=.
	execStart := strings.Fields(u.one(t, "ExecStart"))
	if execStart[0] != "/usr/local/bin/ipsync" {
		t.Fatalf("ExecStart runs %s, not the binary the README installs", execStart[0])
	}
	credID, credSrc, _ := strings.Cut(u.one(t, "LoadCredential"), ":")
	if credSrc != filepath.Join(unitConfigDir, "credentials") {
		t.Fatalf("LoadCredential= reads %s, not the folder the README puts the secrets in", credSrc)
	}
	state := u.one(t, "StateDirectory")
	if u.one(t, "DynamicUser") != "yes" {
		t.Fatalf("the unit does not run as a dynamic user")
	}
	instance := func(site string) *runningAgent {
		creds := filepath.Join(root, "run/credentials", "ipsync-agent@"+site+".service")
		if err := os.MkdirAll(creds, 0o700); err != nil {
			t.Fatal(err)
		}
		for name, v := range secret {
			if err := os.WriteFile(filepath.Join(creds, credID+"_"+name), []byte(v+"\n"), 0o400); err != nil {
				t.Fatal(err)
			}
		}
		env := []string{
			"CREDENTIALS_DIRECTORY=" + creds,
			"STATE_DIRECTORY=" + filepath.Join(root, "var/lib", strings.ReplaceAll(state, "%i", site)),
		}
		for _, e := range u["Environment"] {
			env = append(env, strings.NewReplacer("%d", creds, "%i", site).Replace(e))
		}
		var args []string
		for _, a := range execStart[1:] {
			a = strings.ReplaceAll(a, "%i", site)
			if a == filepath.Join(unitConfigDir, "ipsync.yaml") {
				a = cfg
			}
			args = append(args, a)
		}
		return startProcess(t, listen[site], args, env)
	}
	name := fmt.Sprintf("systemd-%d", time.Now().UnixNano()%100000)
	want := map[string][]string{"a11": {"177", "178"}, "b22": {"264", "265"}}
	for site, base := range neutrons {
		var id string
		if site == "a11" {
			id = routedNetwork(t, base, name, 177, 178, "172.29.40.0/24", "172.29.41.0/24")
		} else {
			id = routedNetworkOn(t, base, name, "b22-1-network", "b22-2-network", 264, 265, "172.29.42.0/24", "172.29.43.0/24")
		}
		t.Cleanup(func() {
			if err := deleteNetwork(base, id); err != nil {
				t.Error(err)
			}
		})
	}
	agents := map[string]*runningAgent{"a11": instance("a11"), "b22": instance("b22")}
	waitUntil(t, "each site's agent to write its own network's VLANs", agents, func() bool {
		for site, vids := range want {
			got := vlansOf(t, srv, "neutron:"+site)
			for _, v := range vids {
				if !slices.Contains(got, v) {
					return false
				}
			}
		}
		return true
	})

	// A second instance of a11 on this host cannot have a11's address;
	// it says which key gives it one of its own.
	second := startProcess(t, listen["a11"], []string{"agent", "--config", cfg, "--site", "a11"},
		[]string{"CREDENTIALS_DIRECTORY=" + filepath.Join(root, "run/credentials/ipsync-agent@a11.service"), "STATE_DIRECTORY=" + t.TempDir()})
	select {
	case code := <-second.done:
		if code == 0 || !strings.Contains(second.logs.String(), "sites[].agent.listen") {
			t.Errorf("a second agent on a11's address: exit %d, want an error naming sites[].agent.listen:\n%s", code, second.logs.String())
		}
	case <-time.After(time.Minute):
		t.Errorf("a second agent on a11's address still runs")
	}

	for site, a := range agents {
		a.stop(t, time.Minute)
		path := statefile.Path(filepath.Join(root, "var/lib", strings.ReplaceAll(state, "%i", site)), site)
		if _, err := os.Stat(path); err != nil {
			t.Errorf("site %s kept no state in its StateDirectory: %v\n%s", site, err, a.logs.String())
		}
	}
}
