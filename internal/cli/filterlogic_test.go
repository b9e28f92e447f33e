package cli

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestOwnerFieldNotFilteredExactly: an owner custom field someone set to
// loose or disabled filtering would let a run take another owner's
// objects for its own. Bootstrap and apply refuse it, saying what to
// set, and write nothing.
func TestOwnerFieldNotFilteredExactly(t *testing.T) {
	eachTarget(t, func(t *testing.T, srv *target) {
		cfg := serverConfig(t, srv.section, srv.URL(), srv.Token(), srv.examples(t), "")
		mustRun(t, "bootstrap", "--config", cfg, "--commit")
		var id string
		for _, f := range srv.Objects(t, "extras.customfield") {
			if f["key"] == "ipsync_owner" || f["name"] == "ipsync_owner" {
				id = fmt.Sprint(f["id"])
			}
		}
		if id == "" {
			t.Fatal("bootstrap made no custom field ipsync_owner")
		}
		path := "/api/extras/custom-fields/" + id + "/"
		t.Cleanup(func() { srv.Call(t, http.MethodPatch, path, map[string]any{"filter_logic": "exact"}, nil) })
		for _, logic := range []string{"loose", "disabled"} {
			srv.Call(t, http.MethodPatch, path, map[string]any{"filter_logic": logic}, nil)
			want := fmt.Sprintf(`custom field "ipsync_owner" has filter logic %q`, logic)
			for _, args := range [][]string{{"bootstrap", "--config", cfg, "--commit"}, {"apply", "--config", cfg, "--commit"}} {
				srv.ResetCounts()
				code, out, errOut := run(t, nil, args...)
				if code == ExitOK || !strings.Contains(errOut, want) || !strings.Contains(errOut, "set its filter logic to exact") {
					t.Errorf("%s with the owner field filtered %s: exit %d, want a refusal saying %q\n%s\n%s", args[0], logic, code, want, out, errOut)
				}
				if n := srv.Requests(http.MethodPost, "/api/ipam/") + srv.Requests(http.MethodPatch, "/api/ipam/"); n > 0 {
					t.Errorf("%s with the owner field filtered %s wrote %d times", args[0], logic, n)
				}
			}
		}
	})
}
