package nautobot

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestChangeRecordRewrittenInPlace: a change context that changes an
// object again (a Job, a script under web_request_context) makes Nautobot
// rewrite the object's change record in place, same id and time, new
// data; an update then a delete turns its action into a delete. A view
// that read the first change follows the second too: read again with the
// log's newest minute (Recent), or, when the record is older than that,
// found by counting the log's deletes (a delete) or by the check of the
// view (another update stamps the object). Real servers only: the
// emulator has no change contexts.
func TestChangeRecordRewrittenInPlace(t *testing.T) {
	tests := []struct {
		name string
		// behind backdates the record by this much, and a change of
		// another VLAN is read before the second change: the record is
		// then older than the newest entry seen by more than Recent.
		behind time.Duration
		second string // what the context does the second time
	}{
		{name: "changed again at once", second: `v.description = "second"
    v.validated_save()`},
		{name: "changed again, the record behind the newest minute", behind: changelog.Recent + time.Minute, second: `v.description = "second"
    v.validated_save()`},
		{name: "deleted, the record behind the newest minute", behind: changelog.Recent + time.Minute, second: `v.delete()`},
	}
	servertest.EachReal(t, func(t *testing.T, srv *servertest.Server) {
		shell := srv.Shell(t)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				e := newEnvOn(t, srv, nil, false)
				ctx := context.Background()
				group := fmt.Sprintf("rewrite-%d", time.Now().UnixNano()%1e9)
				seedVLANs(t, e, group, 2)
				target := e.c.Target(scope.Scope{Kinds: []resource.Kind{resource.KindVLANGroup, resource.KindVLAN}, VLANGroups: []string{group}})
				objsState, err := target.Follow(ctx)
				objs := objectsOf(objsState)
				if err != nil {
					t.Fatal(err)
				}
				ids := map[uint16]string{}
				for _, o := range objs {
					if v, ok := o.(*resource.VLAN); ok {
						ids[v.VID] = v.M.ID
					}
				}
				id := ids[1]
				// description is the VLAN's in the view after a Refresh,
				// and whether the view holds it.
				description := func(step string) (string, bool) {
					t.Helper()
					viewState, _, err := target.Refresh(ctx)
					view := objectsOf(viewState)
					if err != nil {
						t.Fatalf("%s: Refresh: %v", step, err)
					}
					for _, o := range view {
						if o.Meta().ID == id {
							return o.(*resource.VLAN).Description, true
						}
					}
					return "", false
				}

				// One context changes the VLAN, waits for the test to read
				// the log, and changes it again.
				goOn := filepath.Join(t.TempDir(), "go-on")
				script := fmt.Sprintf(`
import datetime, os, time
from django.contrib.auth import get_user_model
from django.utils import timezone
from nautobot.extras.context_managers import web_request_context
from nautobot.extras.models import ObjectChange
from nautobot.ipam.models import VLAN
user = get_user_model().objects.filter(is_superuser=True).first()
with web_request_context(user, context_detail="ipsync-test"):
    v = VLAN.objects.get(id=%q)
    v.description = "first"
    v.validated_save()
    if %d:
        oc = ObjectChange.objects.filter(changed_object_id=v.id).order_by("-time").first()
        ObjectChange.objects.filter(id=oc.id).update(time=timezone.now() - datetime.timedelta(seconds=%d))
    print("FIRST", flush=True)
    deadline = time.time() + 120
    while not os.path.exists(%q) and time.time() < deadline:
        time.sleep(0.1)
    %s
print("DONE", flush=True)
`, id, int(tt.behind.Seconds()), int(tt.behind.Seconds()), goOn, tt.second)
				cmd := exec.Command("sh", "-c", shell)
				cmd.Stdin = strings.NewReader(script)
				cmd.Stderr = os.Stderr
				out, err := cmd.StdoutPipe()
				if err != nil {
					t.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					t.Fatalf("%s: %v", shell, err)
				}
				lines := make(chan string)
				go func() {
					sc := bufio.NewScanner(out)
					for sc.Scan() {
						lines <- strings.TrimSpace(sc.Text())
					}
					close(lines)
				}()
				await := func(want string) {
					t.Helper()
					for deadline := time.After(3 * time.Minute); ; {
						select {
						case l, ok := <-lines:
							if !ok {
								t.Fatalf("the shell ended before printing %s (%v)", want, cmd.Wait())
							}
							if l == want {
								return
							}
						case <-deadline:
							t.Fatalf("the shell printed no %s within 3m", want)
						}
					}
				}
				await("FIRST")
				if tt.behind > 0 {
					if _, err := e.c.Call(ctx, http.MethodPatch, "/api/ipam/vlans/"+ids[2]+"/", nil, map[string]any{"description": "newer"}, nil); err != nil {
						t.Fatal(err)
					}
				}
				if got, _ := description("after the first change"); got != "first" {
					t.Fatalf("after the first change: description %q, want first", got)
				}
				if err := os.WriteFile(goOn, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				await("DONE")
				if err := cmd.Wait(); err != nil {
					t.Fatalf("the shell: %v", err)
				}
				got, held := description("after the second change, in the same context")
				switch deleted := strings.Contains(tt.second, "delete"); {
				case deleted && held:
					t.Errorf("after a delete in the same context the view still holds the VLAN (%q): the record rewritten into a delete was not followed", got)
				case !deleted && got != "second":
					t.Errorf("after the second change in the same context: description %q, want second (the record rewritten in place was not followed)", got)
				}
				whole, err := e.c.List(ctx, scope.Scope{Kinds: []resource.Kind{resource.KindVLANGroup, resource.KindVLAN}, VLANGroups: []string{group}})
				if err != nil {
					t.Fatal(err)
				}
				viewState, _, err := target.Refresh(ctx)
				view := objectsOf(viewState)
				if err != nil {
					t.Fatal(err)
				}
				if misses := changelog.Compare(view, whole); len(misses) > 0 {
					t.Errorf("the view differs from a whole read: %v", misses)
				}
			})
		}
	})
}
