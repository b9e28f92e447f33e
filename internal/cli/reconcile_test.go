package cli

import (
	"fmt"
	"html"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/spec"
)

// mountedSpec is a spec directory as the kubelet keeps a mounted
// ConfigMap: each file a link through ..data, which a new version
// replaces in one rename.
type mountedSpec struct {
	t     *testing.T
	dir   string
	n     int
	names map[string]bool // the links made so far
}

func newMountedSpec(t *testing.T) *mountedSpec {
	return &mountedSpec{t: t, dir: t.TempDir(), names: map[string]bool{}}
}

// publish makes files the spec's version now; files of an earlier
// version that it lacks disappear with it.
func (m *mountedSpec) publish(files map[string]string) {
	m.t.Helper()
	m.n++
	stamp := fmt.Sprintf("..2026_12_06_07_%02d_00.%d", m.n, m.n)
	must := func(err error) {
		m.t.Helper()
		if err != nil {
			m.t.Fatal(err)
		}
	}
	must(os.Mkdir(filepath.Join(m.dir, stamp), 0o700))
	for name, body := range files {
		must(os.WriteFile(filepath.Join(m.dir, stamp, name), []byte(body), 0o600))
	}
	must(os.Symlink(stamp, filepath.Join(m.dir, "..data_tmp")))
	must(os.Rename(filepath.Join(m.dir, "..data_tmp"), filepath.Join(m.dir, "..data")))
	for name := range m.names {
		if _, ok := files[name]; !ok {
			must(os.Remove(filepath.Join(m.dir, name)))
			delete(m.names, name)
		}
	}
	for name := range files {
		if !m.names[name] {
			must(os.Symlink(filepath.Join("..data", name), filepath.Join(m.dir, name)))
			m.names[name] = true
		}
	}
}

// examplesOf reads the example spec files the target takes.
func examplesOf(t *testing.T, srv *target) map[string]string {
	t.Helper()
	dir := srv.examples(t)
	files, err := spec.Files([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(b)
	}
	return out
}

// metricValue reads one series' value from a daemon's /metrics; -1 when it
// is not there.
func metricValue(t *testing.T, a *runningAgent, series string) float64 {
	t.Helper()
	_, body := httpGet("http://" + a.listen + "/metrics")
	for line := range strings.SplitSeq(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	return -1
}

func writesSince(srv *target) int {
	n := 0
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		n += srv.Requests(m, "/api/ipam/")
	}
	return n
}

// TestReconcilerFollowsTheSpec runs `ipsync reconcile` on a spec mounted as
// a ConfigMap: a dry run first, which writes nothing; then the reconciler
// applies the spec, a new version within the poll, and puts back what a
// person deleted by hand at the next interval; a version that would delete
// most of the spec is refused whole, and so is an invalid one, each named
// on the status page and in the metrics with nothing written; the good
// version again clears the refusal without a write.
func TestReconcilerFollowsTheSpec(t *testing.T) {
	eachTarget(t, reconcilerFollows)
}

func reconcilerFollows(t *testing.T, srv *target) {
	examples := examplesOf(t, srv)
	mount := newMountedSpec(t)
	mount.publish(examples)
	cfg := serverConfig(t, srv.section, srv.URL(), srv.Token(), mount.dir, `agent:
  interval: 4s
  lease_ttl: 9s
  lease_renew: 3s
`)
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	objs, diags, err := spec.Load([]string{mount.dir}, "static:deploy")
	if err != nil || len(diags) > 0 {
		t.Fatalf("the examples: %v %v", diags, err)
	}
	wantVLANs := 0
	for _, o := range objs {
		if o.Kind() == resource.KindVLAN {
			wantVLANs++
		}
	}
	runs := func(a *runningAgent, result string) int {
		n := 0
		for _, r := range a.runs(t) {
			if r.Result == result && !strings.HasPrefix(r.Trigger, "standby") {
				n++
			}
		}
		return n
	}

	// A dry run plans the whole spec and writes nothing.
	srv.ResetCounts()
	dry := startDaemon(t, []string{"reconcile", "--config", cfg, "--poll", "200ms", "--dry-run"})
	dry.waitFor(t, "plan the spec", time.Minute, func() bool { return runs(dry, "ok") >= 1 })
	if got := metricValue(t, dry, `ipsync_objects{action="create",kind="vlan",site="static:deploy"}`); got != float64(wantVLANs) {
		t.Errorf("the dry run's plan creates %v VLANs, want %d", got, wantVLANs)
	}
	// Which build answers: in the metrics and on the status page.
	_, metrics := httpGet("http://" + dry.listen + "/metrics")
	if want := fmt.Sprintf(`ipsync_build_info{commit=%q,goversion=%q,version=%q} 1`, commit(Commit, buildInfo()), runtime.Version(), Version); !strings.Contains(metrics, want) {
		t.Errorf("/metrics lacks %s", want)
	}
	_, page := httpGet("http://" + dry.listen + "/")
	_, js := httpGet("http://" + dry.listen + "/status.json")
	if !strings.Contains(page, "<th>version</th><td>ipsync "+html.EscapeString(versionText())+"</td>") || !strings.Contains(js, fmt.Sprintf(`"version": %q`, versionText())) {
		t.Errorf("the status page or status.json does not name the version %q", versionText())
	}
	dry.stop(t, 30*time.Second)
	if l := dry.logs.String(); !strings.Contains(l, `"msg":"reconciler started"`) || !strings.Contains(l, `"msg":"reconciler stopped"`) || strings.Contains(l, "agent st") {
		t.Errorf("the reconciler's log does not name it as the reconciler when it starts and stops:\n%s", l)
	}
	if n := writesSince(srv) + srv.Requests(http.MethodPost, "/api/extras/tags/"); n > 0 {
		t.Errorf("the dry run wrote %d times", n)
	}

	rec := startDaemon(t, []string{"reconcile", "--config", cfg, "--poll", "200ms"})
	owned := func() []string { return vlansOf(t, srv, "static:deploy") }
	rec.waitFor(t, "apply the spec", 2*time.Minute, func() bool { return len(owned()) == wantVLANs })
	if !rec.holdsLease() {
		t.Errorf("the reconciler writes without holding the lease of static:deploy")
	}

	// A new version, published as the kubelet does.
	v2 := maps.Clone(examples)
	v2["zz-added.yaml"] = "vlans:\n  - {vid: 102, name: reconciled, vlan_group: a11-12-network, tenant: platform}\n"
	mount.publish(v2)
	rec.waitFor(t, "apply the new version", time.Minute, func() bool { return slices.Contains(owned(), "102") })

	// Deleted by hand: back at the next interval, though the spec is as it was.
	for _, v := range srv.Objects(t, "ipam.vlan") {
		if fmt.Sprint(v["vid"]) == "102" {
			srv.Call(t, http.MethodDelete, fmt.Sprintf("/api/ipam/vlans/%v/", v["id"]), nil, nil)
		}
	}
	if slices.Contains(owned(), "102") {
		t.Fatal("VLAN 102 still there after deleting it")
	}
	rec.waitFor(t, "put back VLAN 102", time.Minute, func() bool { return slices.Contains(owned(), "102") })

	// Most of the spec gone: the mass-delete guard refuses the whole plan.
	srv.ResetCounts()
	refusedBefore := runs(rec, "error")
	mount.publish(map[string]string{"common.yaml": v2["common.yaml"]})
	rec.waitFor(t, "refuse the mass delete", time.Minute, func() bool { return runs(rec, "error") > refusedBefore })
	_, status := httpGet("http://" + rec.listen + "/status.json")
	if !strings.Contains(status, "plan refused") {
		t.Errorf("status.json does not say the plan was refused:\n%s", status)
	}
	if got := metricValue(t, rec, `ipsync_plan_refusals{site="static:deploy"}`); got < 1 {
		t.Errorf("ipsync_plan_refusals = %v after a refused plan, want at least 1", got)
	}
	if got := metricValue(t, rec, `ipsync_condition{condition="sync",site="static:deploy"}`); got != 0 {
		t.Errorf(`ipsync_condition{condition="sync"} = %v after a refused plan, want 0`, got)
	}

	// An invalid version: refused, named by file and line.
	broken := maps.Clone(v2)
	broken["zz-broken.yaml"] = "vlans:\n  - {vid: 5000, name: too-high, vlan_group: a11-12-network}\n"
	mount.publish(broken)
	rec.waitFor(t, "refuse the invalid spec", time.Minute, func() bool {
		_, s := httpGet("http://" + rec.listen + "/status.json")
		return strings.Contains(s, "zz-broken.yaml:2")
	})

	// The good version again: in agreement, nothing to write.
	okBefore := runs(rec, "ok")
	mount.publish(v2)
	rec.waitFor(t, "plan the good version", time.Minute, func() bool { return runs(rec, "ok") > okBefore })
	if got := metricValue(t, rec, `ipsync_plan_refusals{site="static:deploy"}`); got != 0 {
		t.Errorf("ipsync_plan_refusals = %v after the good version, want 0", got)
	}
	rec.stop(t, 30*time.Second)
	if n := writesSince(srv); n > 0 {
		t.Errorf("%d writes since the refused version; want none: refused plans write nothing, and the good version was in place", n)
	}
	if got := len(owned()); got != wantVLANs+1 {
		t.Errorf("%d VLANs of static:deploy at the end, want %d", got, wantVLANs+1)
	}
}
