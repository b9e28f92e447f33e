package nautobot

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/nbtest"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// TestChangeRecordRewrittenInPlace: a change context that changes an
// object again (a Job, a script under web_request_context) makes Nautobot
// rewrite the object's change record in place, same id and time, new
// data. A view that read the first change follows the second too. Real
// servers only: the emulator has no change contexts.
func TestChangeRecordRewrittenInPlace(t *testing.T) {
	nbtest.EachReal(t, func(t *testing.T, srv *nbtest.Server) {
		shell := srv.Shell(t)
		e := newEnvOn(t, srv, nil, false)
		ctx := context.Background()
		seedVLANs(t, e, "rewrite", 1)
		target := e.c.Target(scope.Scope{Kinds: []resource.Kind{resource.KindVLANGroup, resource.KindVLAN}})
		objs, err := target.Follow(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var id string
		for _, o := range objs {
			if v, ok := o.(*resource.VLAN); ok && v.Group == "rewrite" {
				id = v.M.ID
			}
		}
		if id == "" {
			t.Fatalf("the seeded VLAN is not in the view: %v", objs)
		}
		description := func(step string) string {
			t.Helper()
			view, _, err := target.Refresh(ctx)
			if err != nil {
				t.Fatalf("%s: Refresh: %v", step, err)
			}
			for _, o := range view {
				if o.Meta().ID == id {
					return o.(*resource.VLAN).Description
				}
			}
			t.Fatalf("%s: the VLAN left the view", step)
			return ""
		}

		// One context changes the VLAN, waits for the test to read the
		// log, and changes it again.
		goOn := filepath.Join(t.TempDir(), "go-on")
		script := fmt.Sprintf(`
import os, time
from django.contrib.auth import get_user_model
from nautobot.extras.context_managers import web_request_context
from nautobot.ipam.models import VLAN
user = get_user_model().objects.filter(is_superuser=True).first()
with web_request_context(user, context_detail="ipsync-test"):
    v = VLAN.objects.get(id=%q)
    v.description = "first"
    v.validated_save()
    print("FIRST", flush=True)
    deadline = time.time() + 120
    while not os.path.exists(%q) and time.time() < deadline:
        time.sleep(0.1)
    v.description = "second"
    v.validated_save()
print("DONE", flush=True)
`, id, goOn)
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
		if got := description("after the first change"); got != "first" {
			t.Fatalf("after the first change: description %q, want first", got)
		}
		if err := os.WriteFile(goOn, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		await("DONE")
		if err := cmd.Wait(); err != nil {
			t.Fatalf("the shell: %v", err)
		}
		if got := description("after the second change, in the same context"); got != "second" {
			t.Errorf("after the second change in the same context: description %q, want second (the record rewritten in place was not followed)", got)
		}
	})
}
