package cli

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/netbox/netboxtest"
)

// BenchmarkNetBoxReview times one plan of N creates (IPSYNC_NETBOX_REVIEW_BENCH=N
// prefixes, 10000 for the figure in BENCHMARKS.md) applied to main, and
// a plan of as many through apply --review: branch, write and change
// request; approval; merge, each phase apart. The two plans are of two
// owners in VRFs of their own, so both start from nothing on one server.
func BenchmarkNetBoxReview(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("IPSYNC_NETBOX_REVIEW_BENCH"))
	if n <= 0 {
		b.Skip("set IPSYNC_NETBOX_REVIEW_BENCH to a number of prefixes, and the IPSYNC_NETBOX_REVIEW_* servers, to run")
	}
	s, reviewerToken := netboxtest.NewReview(b)
	specOf := func(vrf string) string {
		var y strings.Builder
		fmt.Fprintf(&y, "namespaces:\n  - {name: %s}\nprefixes:\n", vrf)
		for i := range n {
			fmt.Fprintf(&y, "  - {prefix: 10.%d.%d.0/24, namespace: %s}\n", 100+i/256, i%256, vrf)
		}
		dir := b.TempDir()
		if err := os.WriteFile(filepath.Join(dir, vrf+".yaml"), []byte(y.String()), 0o600); err != nil {
			b.Fatal(err)
		}
		return dir
	}
	config := func(name, dir string) string {
		return writeConfig(b, fmt.Sprintf("spec: {name: %s, paths: [%q]}\nnetbox: {url: %q, timeout: 10m, max_wait: 30m}\nallowed_hosts: [127.0.0.1]\n", name, dir, s.URL()))
	}
	env := map[string]string{"IPSYNC_NETBOX_TOKEN": s.Token()}
	timed := func(want int, args ...string) time.Duration {
		start := time.Now()
		code, out, stderr := run(b, env, args...)
		if code != want {
			b.Fatalf("%v = exit %d, want %d:\n%s\n%s", args, code, want, out, stderr)
		}
		return time.Since(start)
	}
	mainCfg, reviewCfg := config("bench-main", specOf("bench-main")), config("bench-review", specOf("bench-review"))
	timed(0, "bootstrap", "--config", mainCfg, "--commit")
	for range b.N {
		toMain := timed(0, "apply", "--config", mainCfg, "--commit")
		toBranch := timed(ExitReview, "apply", "--config", reviewCfg, "--review", "--commit")
		_, js, _ := run(b, env, "plan", "--config", reviewCfg, "-o", "json")
		var page struct {
			Results []changeRequest `json:"results"`
		}
		s.Call(b, http.MethodGet, "/api/plugins/change-control/change-requests/?status=needs-review&ref="+fingerprintRE.FindString(js), nil, &page)
		if len(page.Results) != 1 {
			b.Fatalf("change requests awaiting review: %+v", page.Results)
		}
		cr := page.Results[0]
		start := time.Now()
		s.CallAs(b, reviewerToken, http.MethodPost, "/api/plugins/change-control/reviews/", map[string]any{"change_request": cr.ID, "decision": "approve"}, nil)
		approve := time.Since(start)
		start = time.Now()
		merge(b, s, *cr.Branch)
		merged := time.Since(start)
		timed(0, "plan", "--config", reviewCfg)
		b.ReportMetric(toMain.Seconds(), "s-main")
		b.ReportMetric(toBranch.Seconds(), "s-branch")
		b.ReportMetric(approve.Seconds(), "s-approve")
		b.ReportMetric(merged.Seconds(), "s-merge")
		b.Logf("%d creates: apply to main %.1f s; apply --review (branch, write, change request) %.1f s, approval %.1f s, merge %.1f s",
			n, toMain.Seconds(), toBranch.Seconds(), approve.Seconds(), merged.Seconds())
	}
}
