package nautobot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestChangeLogBehindTheOverlap: changes whose records a read of the log
// from the overlap on never returns. A record that becomes visible more
// than the overlap after its time (a long transaction, a server clock
// behind) and records pruned before or after they were read (Logs Cleanup
// with max_age=0) must not leave the followed view stale: the cursor's
// tally or witness distrusts the log, or the check of the view finds the
// change. Real servers only: the records are rewritten and deleted in the
// server's own shell, as the server does it.
func TestChangeLogBehindTheOverlap(t *testing.T) {
	tests := []struct {
		name string
		// change makes the change in the server; id is the VLAN's, at the
		// time of the newest record of it the view has read.
		change    func(t *testing.T, e *env, shell, id string, at time.Time)
		untrusted string // what the log's distrust must say; "" for a change the check finds
	}{
		{name: "a record visible long after its time", untrusted: "appeared more than",
			change: func(t *testing.T, e *env, shell, id string, at time.Time) {
				// Stamped before the overlap of the newest record read,
				// after the whole read's: no read of the log returns it,
				// and the VLAN's own stamp is older than the view's newest.
				late := at.Add(-changelog.Overlap - 500*time.Millisecond)
				runShell(t, shell, fmt.Sprintf(`
import datetime
from django.contrib.auth import get_user_model
from nautobot.extras.context_managers import web_request_context
from nautobot.extras.models import ObjectChange
from nautobot.ipam.models import VLAN
late = datetime.datetime.fromisoformat(%q)
user = get_user_model().objects.filter(is_superuser=True).first()
with web_request_context(user, context_detail="ipsync-test"):
    v = VLAN.objects.get(id=%q)
    v.description = "late"
    v.validated_save()
oc = ObjectChange.objects.filter(changed_object_id=v.id).order_by("-time").first()
ObjectChange.objects.filter(id=oc.id).update(time=late)
VLAN.objects.filter(id=v.id).update(last_updated=late)
`, late.UTC().Format("2006-01-02T15:04:05.000000+00:00"), id))
			}},
		{name: "the records read before pruned", untrusted: "gone from the log",
			change: func(t *testing.T, e *env, shell, id string, _ time.Time) {
				runShell(t, shell, fmt.Sprintf(`
from nautobot.extras.models import ObjectChange
ObjectChange.objects.filter(changed_object_id=%q).delete()
`, id))
			}},
		{name: "an edit whose record is pruned before it is read",
			change: func(t *testing.T, e *env, shell, id string, at time.Time) {
				if _, err := e.c.Call(context.Background(), http.MethodPatch, "/api/ipam/vlans/"+id+"/", nil, map[string]any{"description": "pruned"}, nil); err != nil {
					t.Fatal(err)
				}
				runShell(t, shell, fmt.Sprintf(`
import datetime
from nautobot.extras.models import ObjectChange
ObjectChange.objects.filter(changed_object_id=%q, time__gt=datetime.datetime.fromisoformat(%q)).delete()
`, id, at.UTC().Format("2006-01-02T15:04:05.000000+00:00")))
			}},
		{name: "an edit that writes no record (a queryset update)",
			change: func(t *testing.T, e *env, shell, id string, _ time.Time) {
				runShell(t, shell, fmt.Sprintf(`
from django.utils import timezone
from nautobot.ipam.models import VLAN
VLAN.objects.filter(id=%q).update(description="unlogged", last_updated=timezone.now())
`, id))
			}},
		{name: "an edit that writes no record, then another VLAN's edit the log names",
			change: func(t *testing.T, e *env, shell, id string, _ time.Time) {
				// The logged edit is stamped later: a check from the
				// newest stamp the view then holds passes over the first.
				runShell(t, shell, fmt.Sprintf(`
import time
from django.contrib.auth import get_user_model
from django.utils import timezone
from nautobot.extras.context_managers import web_request_context
from nautobot.ipam.models import VLAN
v = VLAN.objects.get(id=%q)
VLAN.objects.filter(id=v.id).update(description="unlogged", last_updated=timezone.now())
time.sleep(0.05)
user = get_user_model().objects.filter(is_superuser=True).first()
with web_request_context(user, context_detail="ipsync-test"):
    other = VLAN.objects.get(vlan_group=v.vlan_group, vid=2)
    other.description = "logged after"
    other.validated_save()
`, id))
			}},
	}
	servertest.EachReal(t, func(t *testing.T, srv *servertest.Server) {
		shell := srv.Shell(t)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ctx := context.Background()
				e := newEnvOn(t, srv, nil, false)
				group := fmt.Sprintf("behind-%d", time.Now().UnixNano()%1e9)
				seedVLANs(t, e, group, 2)
				target := e.c.Target(scope.Scope{Kinds: []resource.Kind{resource.KindVLANGroup, resource.KindVLAN}, VLANGroups: []string{group}})
				objsState, err := target.Follow(ctx)
				objs := objectsOf(objsState)
				if err != nil {
					t.Fatal(err)
				}
				var id string
				for _, o := range objs {
					if v, ok := o.(*resource.VLAN); ok && v.VID == 1 {
						id = v.M.ID
					}
				}
				// A change the log names moves the cursor past the whole
				// read's overlap.
				time.Sleep(1500 * time.Millisecond)
				if _, err := e.c.Call(ctx, http.MethodPatch, "/api/ipam/vlans/"+id+"/", nil, map[string]any{"description": "logged"}, nil); err != nil {
					t.Fatal(err)
				}
				if _, _, err := target.Refresh(ctx); err != nil {
					t.Fatalf("Refresh after a logged change: %v", err)
				}
				var newest struct {
					Results []struct {
						Time time.Time `json:"time"`
					} `json:"results"`
				}
				if _, err := e.c.Call(ctx, http.MethodGet, pathObjectChanges, url.Values{"limit": {"1"}, "sort": {"-time"}, "changed_object_id": {id}}, nil, &newest); err != nil || len(newest.Results) == 0 {
					t.Fatalf("read the VLAN's newest record: %v", err)
				}

				tt.change(t, e, shell, id, newest.Results[0].Time)

				viewState, st, err := target.Refresh(ctx)
				view := objectsOf(viewState)
				if tt.untrusted != "" {
					u, ok := errors.AsType[*changelog.UntrustedError](err)
					if !ok || !strings.Contains(u.Reason, tt.untrusted) {
						t.Fatalf("Refresh() = %v, want the log distrusted: %q", err, tt.untrusted)
					}
					return
				}
				if err != nil {
					t.Fatalf("Refresh() = %v", err)
				}
				if len(st.Missed) != 1 || st.Missed[0].ID != id {
					t.Errorf("Refresh found %v missed, want the VLAN %s", st.Missed, id)
				}
				whole, err := e.c.List(ctx, scope.Scope{Kinds: []resource.Kind{resource.KindVLANGroup, resource.KindVLAN}, VLANGroups: []string{group}})
				if err != nil {
					t.Fatal(err)
				}
				if misses := changelog.Compare(view, whole); len(misses) > 0 {
					t.Errorf("the view after the check differs from a whole read: %v", misses)
				}
			})
		}
	})
}

// runShell runs script in the server's nautobot-server shell.
func runShell(t testing.TB, shell, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", shell)
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nautobot-server shell: %v\n%s", err, out)
	}
}
