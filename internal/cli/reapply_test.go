package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReapplyingAnAppliedPlan: applying a saved plan a second time finds
// every object already as the plan writes it; it says so in one line and
// writes nothing, instead of refusing with a line per object "created by
// someone else".
func TestReapplyingAnAppliedPlan(t *testing.T) {
	eachTarget(t, func(t *testing.T, srv *target) {
		cfg := serverConfig(t, srv.section, srv.URL(), srv.Token(), srv.examples(t), "")
		mustRun(t, "bootstrap", "--config", cfg, "--commit")
		planFile := filepath.Join(t.TempDir(), "plan.json")
		mustRun(t, "plan", "--config", cfg, "--out", planFile)
		mustRun(t, "apply", "--config", cfg, "--plan", planFile, "--commit")
		srv.ResetCounts()
		code, out, errOut := run(t, nil, "apply", "--config", cfg, "--plan", planFile, "--commit")
		if code != ExitOK || !strings.Contains(out, "as it writes them (applied before); left out") || !strings.Contains(errOut, "applied: 0 objects written") ||
			strings.Contains(out+errOut, "someone else") {
			t.Errorf("re-applying an applied plan: exit %d\n%s\n%s", code, out, errOut)
		}
		t.Logf("%s", out)
		if n := srv.Requests("POST", "") + srv.Requests("PUT", "") + srv.Requests("PATCH", "") + srv.Requests("DELETE", ""); n > 0 {
			t.Errorf("re-applying an applied plan sent %d writes", n)
		}
	})
}
