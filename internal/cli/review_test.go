package cli

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"

	"github.com/ipsync/ipsync/internal/browsertest"
)

var fingerprintRE = regexp.MustCompile(`sha256:[0-9a-f]{64}`)

// fingerprintIn is the plan fingerprint a rendering shows.
func fingerprintIn(t *testing.T, out string) string {
	t.Helper()
	fp := fingerprintRE.FindString(out)
	if fp == "" {
		t.Fatalf("no plan fingerprint in:\n%s", out)
	}
	return fp
}

// TestReviewedFingerprintWithoutServer checks the flags' contract on the
// in-process target: the fingerprint markdown and JSON show is the one
// apply --reviewed takes, another is refused (exit 3) and a malformed one
// is a usage error.
func TestReviewedFingerprintWithoutServer(t *testing.T) {
	code, md, stderr := run(t, nil, "plan", "--target", "memory", "-o", "markdown", "examples/")
	if code != ExitChanges {
		t.Fatalf("plan -o markdown = exit %d, want %d:\n%s", code, ExitChanges, stderr)
	}
	fp := fingerprintIn(t, md)
	if _, js, _ := run(t, nil, "plan", "--target", "memory", "-o", "json", "examples/"); !strings.Contains(js, `"fingerprint": "`+fp+`"`) {
		t.Errorf("plan -o json does not carry the markdown's fingerprint %s", fp)
	}
	other := "sha256:" + strings.Repeat("0", 64)
	tests := []struct {
		name     string
		reviewed string
		code     int
		want     string
	}{
		{"the reviewed plan", fp, 0, "dry run:"},
		{"another plan", other, ExitRefused, "is not the reviewed one (" + other + ")"},
		{"not a fingerprint", "0eee7b03", ExitUsage, "is not a plan fingerprint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := run(t, nil, "apply", "--target", "memory", "--reviewed", tt.reviewed, "examples/")
			if code != tt.code || !strings.Contains(out+stderr, tt.want) {
				t.Errorf("apply --reviewed %s = exit %d, want %d and %q:\n%s\n%s", tt.reviewed, code, tt.code, tt.want, out, stderr)
			}
		})
	}
}

// TestReviewedPlanOnly is the review flow on each server: the plan of a
// realistic change (creates, updates, deletes, a conflict) as Markdown,
// read in a real browser as a reviewer sees it; apply --reviewed writes
// the reviewed plan and refuses whole, writing nothing, a plan the spec or
// the target changed since the review; the reconciler given the reviewed
// fingerprint in a file beside the mounted spec does the same, and
// applies a new fingerprint within its poll.
func TestReviewedPlanOnly(t *testing.T) {
	eachTarget(t, reviewedPlanOnly)
}

// withReviewVLANs is the examples with zz-review.yaml holding the VLANs
// of a11-12-network the review tests change, each "vid name".
func withReviewVLANs(examples map[string]string, vlans ...string) map[string]string {
	files := maps.Clone(examples)
	y := "vlans:\n"
	for _, v := range vlans {
		vid, name, _ := strings.Cut(v, " ")
		y += fmt.Sprintf("  - {vid: %s, name: %s, vlan_group: a11-12-network, tenant: platform}\n", vid, name)
	}
	files["zz-review.yaml"] = y
	return files
}

// reviewSetup applies the examples with VLANs 120 and 121 of static:deploy
// to srv from a mounted spec, as the review tests start.
func reviewSetup(t *testing.T, srv *target, agentConfig string) (examples map[string]string, mount *mountedSpec, cfg string) {
	t.Helper()
	examples = examplesOf(t, srv)
	mount = newMountedSpec(t)
	mount.publish(withReviewVLANs(examples, "120 review-a", "121 review-b"))
	cfg = serverConfig(t, srv.section, srv.URL(), srv.Token(), mount.dir, agentConfig)
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")
	return examples, mount, cfg
}

func reviewedPlanOnly(t *testing.T, srv *target) {
	examples, mount, cfg := reviewSetup(t, srv, "agent:\n  interval: 1h\n  lease_ttl: 9s\n  lease_renew: 3s\n")
	owned := func() []string { return vlansOf(t, srv, "static:deploy") }

	// The pull request: one VLAN renamed, one gone, one new, and one whose
	// vid someone took by hand.
	srv.handVLAN(t, 130, "by-hand", "a11-12-network", "")
	v2 := withReviewVLANs(examples, "120 review-a-renamed", "122 review-c", "130 review-d")
	mount.publish(v2)
	code, md, stderr := run(t, nil, "plan", "--config", cfg, "-o", "markdown")
	if code != ExitRefused {
		t.Fatalf("plan -o markdown of a change with a conflict = exit %d, want %d (refused):\n%s", code, ExitRefused, stderr)
	}
	for _, want := range []string{
		"**1 to create, 1 to update, 1 to delete**, **1 conflict**",
		"**Refused: applying this plan would write nothing.**",
		"- vlan a11-12-network/121",
		`-     name: "review-a"`, `+     name: "review-a-renamed"`,
		"+ create vlan a11-12-network/122",
		"- vlan `a11-12-network/130`: exists without an ipsync marker",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the plan's Markdown lacks %q:\n%s", want, md)
		}
	}
	readMarkdownInBrowser(t, md, strings.ReplaceAll(t.Name(), "/", "-"))

	// The conflict resolved (the hand-made VLAN adopted by nobody: it goes),
	// the plan reviewed again.
	for _, v := range srv.Objects(t, "ipam.vlan") {
		if v["name"] == "by-hand" {
			srv.Call(t, http.MethodDelete, "/api/ipam/vlans/"+idOf(v)+"/", nil, nil)
		}
	}
	code, md, stderr = run(t, nil, "plan", "--config", cfg, "-o", "markdown")
	if code != ExitChanges {
		t.Fatalf("plan -o markdown = exit %d, want %d:\n%s", code, ExitChanges, stderr)
	}
	reviewed := fingerprintIn(t, md)

	// The spec moved on after the review: another plan, refused whole.
	v3 := maps.Clone(v2)
	v3["zz-later.yaml"] = "vlans:\n  - {vid: 140, name: unreviewed, vlan_group: a11-12-network, tenant: platform}\n"
	mount.publish(v3)
	srv.ResetCounts()
	code, out, stderr := run(t, nil, "apply", "--config", cfg, "--reviewed", reviewed, "--commit")
	if code != ExitRefused || !strings.Contains(out+stderr, "not the reviewed one") {
		t.Errorf("apply --reviewed after the spec changed = exit %d, want %d naming the review:\n%s\n%s", code, ExitRefused, out, stderr)
	}
	if n := writesSince(srv); n > 0 {
		t.Errorf("a plan that is not the reviewed one wrote %d times", n)
	}

	// The target moved after the review: a person edits an owned VLAN.
	mount.publish(v2)
	for _, v := range srv.Objects(t, "ipam.vlan") {
		if v["name"] == "review-b" {
			srv.Call(t, http.MethodPatch, "/api/ipam/vlans/"+idOf(v)+"/", map[string]any{"description": "edited by hand"}, nil)
		}
	}
	srv.ResetCounts()
	code, out, stderr = run(t, nil, "apply", "--config", cfg, "--reviewed", reviewed, "--commit")
	if code != ExitRefused || !strings.Contains(out+stderr, "not the reviewed one") {
		t.Errorf("apply --reviewed after a hand edit = exit %d, want %d:\n%s\n%s", code, ExitRefused, out, stderr)
	}
	if n := writesSince(srv); n > 0 {
		t.Errorf("a plan changed by a hand edit since the review wrote %d times", n)
	}

	// The reconciler, told the old fingerprint beside the spec: refused,
	// nothing written; told the new one: applied within its poll.
	withReviewed := func(spec map[string]string, fp string) map[string]string {
		files := maps.Clone(spec)
		files["reviewed-fingerprint"] = fp + "\n"
		return files
	}
	mount.publish(withReviewed(v2, reviewed))
	srv.ResetCounts()
	rec := startDaemon(t, []string{"reconcile", "--config", cfg, "--poll", "200ms", "--reviewed-file", filepath.Join(mount.dir, "reviewed-fingerprint")})
	rec.waitFor(t, "refuse the unreviewed plan", time.Minute, func() bool {
		_, s := httpGet("http://" + rec.listen + "/status.json")
		return strings.Contains(s, "not the reviewed one")
	})
	if n := writesSince(srv); n > 0 {
		t.Errorf("the reconciler wrote %d times a plan that is not the reviewed one", n)
	}
	_, out, _ = run(t, nil, "plan", "--config", cfg, "-o", "json")
	mount.publish(withReviewed(v2, fingerprintIn(t, out)))
	rec.waitFor(t, "apply the reviewed plan", time.Minute, func() bool {
		return slices.Contains(owned(), "122") && !slices.Contains(owned(), "121")
	})
	rec.stop(t, 30*time.Second)
	if code, out, stderr := run(t, nil, "plan", "--config", cfg); code != 0 {
		t.Errorf("plan after the reviewed plan was applied = exit %d, want 0:\n%s\n%s", code, out, stderr)
	}
}

// readMarkdownInBrowser renders md as a code-review page renders a
// comment (CommonMark with GitHub's tables, raw HTML for the folds) and
// opens it in a real Chromium: the summary is a table, the refusal and
// the deletes show without opening anything, each kind's changes are a
// fold of their own, and the fingerprint is on the page.
func readMarkdownInBrowser(t *testing.T, md, name string) {
	t.Helper()
	chromium := browsertest.New(t)
	var body bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	if err := gm.Convert([]byte(md), &body); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), name+".html")
	doc := `<!doctype html><meta charset="utf-8"><title>pull request comment</title>
<style>body{font:14px -apple-system,sans-serif;max-width:880px;margin:24px auto;color:#1f2328}
table{border-collapse:collapse}td,th{border:1px solid #d1d9e0;padding:4px 10px}
pre{background:#f6f8fa;padding:12px}blockquote{border-left:4px solid #d1242f;margin:0;padding:0 12px;color:#59636e}
details{margin:6px 0}summary{cursor:pointer}</style>` + body.String()
	if err := os.WriteFile(page, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	dom := chromium.DOM(t, "file://"+page)
	for _, want := range []string{
		"<th>kind</th>", "<td><strong>total</strong></td>",
		"<strong>Refused: applying this plan would write nothing.</strong>",
		"<summary>1 object to delete</summary>",
		"<summary><b>vlan</b>: 1 create, 1 update, 1 delete</summary>",
		"Plan fingerprint: <code>sha256:",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered plan lacks %q:\n%s", want, dom)
		}
	}
	chromium.Screenshot(t, "file://"+page, name)
}

// idOf is an object's id as a server lists it, a UUID or a number.
func idOf(o map[string]any) string { return fmt.Sprint(o["id"]) }
