package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// runAsCLIEnv, set in a child's environment, makes this test binary run
// ipsync itself (see TestMain): a test that kills a real ipsync process
// with SIGKILL starts it so.
const runAsCLIEnv = "IPSYNC_TEST_RUN_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(runAsCLIEnv) == "1" {
		// As cmd/ipsync: SIGTERM stops an agent cleanly.
		ctx, done := Interrupts()
		code := Main(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
		done()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// killer stands between ipsync and the server. When the first create at
// path comes through it kills the process that sent it (SIGKILL) and
// holds the create, as a server still writing it would. With no delay it
// hands it to the server when the rerun's apply reads the marker tag, its
// preflight: after the rerun's plan read the server and before its first
// write. With a delay it hands it on that long after the kill, whatever
// the rerun is doing then.
type killer struct {
	upstream *url.URL
	proxy    *httputil.ReverseProxy
	path     string
	delay    time.Duration

	mu     sync.Mutex
	kill   func()
	held   *http.Request // the killed run's create, with its body
	handed bool          // the held create went on to the server
	late   sync.WaitGroup
}

// hand sends the held create to the server; the caller holds the lock.
func (k *killer) hand() {
	k.handed = true
	resp, err := http.DefaultTransport.RoundTrip(k.held)
	if err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

func (k *killer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case k.held == nil && r.Method == http.MethodPost && r.URL.Path == k.path:
		body, _ := io.ReadAll(r.Body)
		held := r.Clone(context.Background())
		held.Body, held.ContentLength, held.RequestURI = io.NopCloser(bytes.NewReader(body)), int64(len(body)), ""
		held.URL.Scheme, held.URL.Host, held.Host = k.upstream.Scheme, k.upstream.Host, k.upstream.Host
		k.held = held
		k.kill()
		if k.delay > 0 {
			k.late.Go(func() {
				time.Sleep(k.delay)
				k.mu.Lock()
				defer k.mu.Unlock()
				k.hand()
			})
		}
		return // to a dead process
	case k.held != nil && !k.handed && k.delay == 0 && r.URL.Path == "/api/extras/tags/" && slices.Contains(r.URL.Query()["name"], "managed-by-ipsync"):
		k.hand()
	}
	k.proxy.ServeHTTP(w, r)
}

// killPaths are, per server, the paths of the creates a run is killed at:
// a namespace (NetBox: a VRF), a VLAN group without a location, VLANs,
// prefixes and addresses.
var killPaths = map[string][]string{
	"nautobot": {"/api/ipam/namespaces/", "/api/ipam/vlan-groups/", "/api/ipam/vlans/", "/api/ipam/prefixes/", "/api/ipam/ip-addresses/"},
	"netbox":   {"/api/ipam/vrfs/", "/api/ipam/vlan-groups/", "/api/ipam/vlans/", "/api/ipam/prefixes/", "/api/ipam/ip-addresses/"},
}

// TestKilledApplyThenImmediateRerun: `apply --commit` is killed with
// SIGKILL as it sends the creates of one kind, and is rerun at once. The
// killed run's create commits after the rerun read the server, before the
// rerun writes (the rerun then says it took over objects an earlier run
// wrote), or while the rerun writes: the rerun exits 0, each object exists
// once, and a new plan has nothing to do. On every Nautobot and on NetBox,
// for each kind.
func TestKilledApplyThenImmediateRerun(t *testing.T) {
	eachTarget(t, func(t *testing.T, srv *target) {
		for i, path := range killPaths[srv.section] {
			t.Run(strings.Trim(path, "/")+" committed before the rerun writes", func(t *testing.T) { killedApplyThenRerun(t, srv, path, 2*i, 0) })
			t.Run(strings.Trim(path, "/")+" committed while the rerun writes", func(t *testing.T) { killedApplyThenRerun(t, srv, path, 2*i+1, 3*time.Second) })
		}
	})
}

func killedApplyThenRerun(t *testing.T, srv *target, path string, n int, delay time.Duration) {
	dir := t.TempDir()
	name := fmt.Sprintf("killed-%d", n)
	upstream, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	k := &killer{upstream: upstream, proxy: httputil.NewSingleHostReverseProxy(upstream), path: path, delay: delay}
	ts := httptest.NewServer(k)
	defer ts.Close()
	defer k.late.Wait()

	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte(srv.Token()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, spec := filepath.Join(dir, "ipsync.yaml"), filepath.Join(dir, "spec.yaml")
	conf := fmt.Sprintf("spec: {name: %s, paths: [%q]}\n%s: {url: %q, token_file: %q}\nallowed_hosts: [127.0.0.1]\n", name, spec, srv.section, ts.URL, token)
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "namespaces:\n  - {name: %s}\nvlan_groups:\n  - {name: %s-floating, range: \"100-199\"}\nvlans:\n", name, name)
	for v := range 5 {
		fmt.Fprintf(&b, "  - {vid: %d, name: v%d, vlan_group: %s-floating}\n", 100+v, 100+v, name)
	}
	b.WriteString("prefixes:\n")
	for p := range 3 {
		fmt.Fprintf(&b, "  - {prefix: 10.%d.%d.0/24, namespace: %s, vlan: %s-floating/%d}\n", 60+n, p, name, name, 100+p)
	}
	b.WriteString("ip_addresses:\n")
	for a := range 10 {
		fmt.Fprintf(&b, "  - {address: 10.%d.%d.%d/24, namespace: %s}\n", 60+n, a%3, 10+a, name)
	}
	if err := os.WriteFile(spec, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "bootstrap", "--config", cfg, "--commit")

	cmd := exec.Command(os.Args[0], "apply", "--config", cfg, "--commit")
	// As run gives the rerun: no variables of its own, the token from the
	// config's file.
	cmd.Env = []string{runAsCLIEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	k.mu.Lock()
	if err := cmd.Start(); err != nil {
		k.mu.Unlock()
		t.Fatal(err)
	}
	k.kill = func() { _ = cmd.Process.Kill() }
	k.mu.Unlock()
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("the first run was not killed (%v):\n%s", err, out.String())
	}

	code, stdout, stderr := run(t, nil, "apply", "--config", cfg, "--commit")
	if code != ExitOK {
		t.Fatalf("rerun: exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	k.late.Wait()
	k.mu.Lock()
	handed := k.handed
	k.mu.Unlock()
	if !handed {
		t.Fatalf("the killed run's create at %s never reached the server; rerun said:\n%s", path, stderr)
	}
	if delay == 0 && !strings.Contains(stderr, "earlier run") {
		t.Errorf("the rerun does not say it found an earlier run's writes:\n%s", stderr)
	}
	// NetBox would keep a second copy of these: the rerun waits for the
	// killed run's create, and says so.
	if racy := srv.section == "netbox" && path != "/api/ipam/vlans/"; racy && delay > 0 && !strings.Contains(stderr, "on their way") {
		t.Errorf("the rerun does not say it waited for the killed run's creates:\n%s", stderr)
	}
	owner := "static:" + name
	for kind, want := range map[string]int{"ipam.vlan": 5, "ipam.prefix": 3, "ipam.ipaddress": 10} {
		if got := len(fieldOf(t, srv, kind, "id", owner)); got != want {
			t.Errorf("%d %s of %s, want %d", got, kind, owner, want)
		}
	}
	for _, c := range []struct{ kind, name string }{{"ipam.vlangroup", name + "-floating"}, {namespaceKind(srv), name}} {
		n := 0
		for _, o := range srv.Objects(t, c.kind) {
			if o["name"] == c.name {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d %s named %s, want 1", n, c.kind, c.name)
		}
	}
	if code, out, errOut := run(t, nil, "plan", "--config", cfg); code != ExitOK {
		t.Errorf("plan after the rerun: exit %d, want 0 (nothing to do)\n%s\n%s", code, out, errOut)
	}
}

// namespaceKind is what a spec namespace is in srv.
func namespaceKind(srv *target) string {
	if srv.section == "netbox" {
		return "ipam.vrf"
	}
	return "ipam.namespace"
}
