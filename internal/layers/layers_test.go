// Package layers holds the test of which of ipsync's packages may import
// which: the domain and the planner stay pure, the shared engine knows no
// server's dialect, the dialects know none of their callers, the emulator
// none of the client, and the command is thin; and the shipped binary
// links no test support, nor the emulator's endpoints only tests read. It
// fails on a forbidden import, naming it.
package layers

import (
	"bufio"
	"bytes"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ipsync/ipsync/"

// rule forbids the packages it covers some imports: of the module's
// packages, all but those allowed (when allowed is set) and those
// denied; of the standard library, those in std.
type rule struct {
	what     string
	packages []string // module-relative; "x/..." covers x and below
	allowed  []string // module packages they may import; nil: any not denied
	denied   []string // module packages they must not import
	std      []string // standard packages they must not import
}

var rules = []rule{
	{
		what:     "the domain and the planner are pure: no I/O, no clock, no logging, only each other",
		packages: []string{"internal/resource", "internal/plan", "internal/scope", "internal/ownership", "internal/reconcile"},
		allowed:  []string{"internal/resource", "internal/plan", "internal/scope", "internal/plural"},
		std:      []string{"net", "net/http", "os", "os/exec", "io/fs", "log", "log/slog", "syscall", "time"},
	},
	{
		what:     "the shared engine (transport, paging, bulk writes, change logs) knows no server's dialect and no caller; it is a reconcile.Target, whose package it may import",
		packages: []string{"internal/sot", "internal/httpapi", "internal/bulkwrite", "internal/changelog", "internal/parallel", "internal/backoff", "internal/clock"},
		denied:   []string{"internal/nautobot/...", "internal/netbox/...", "internal/neutron/...", "internal/cli", "internal/agent", "internal/sitesync", "internal/events"},
	},
	{
		what:     "a dialect knows the engine, not the other dialect nor its callers",
		packages: []string{"internal/nautobot", "internal/netbox"},
		denied:   []string{"internal/cli", "internal/agent", "internal/sitesync", "internal/events", "internal/reconcile", "internal/neutron/..."},
	},
	{
		what:     "Nautobot's dialect is not NetBox's",
		packages: []string{"internal/nautobot/..."},
		denied:   []string{"internal/netbox/..."},
	},
	{
		what:     "NetBox's dialect is not Nautobot's",
		packages: []string{"internal/netbox/..."},
		denied:   []string{"internal/nautobot/..."},
	},
	{
		what:     "the emulator is a server, not ipsync's client: it shares no code with what it is tested against",
		packages: []string{"internal/nautobot/emulator"},
		allowed:  []string{"internal/reqcount"},
	},
	{
		what:     "the command is thin: it hands everything to internal/cli",
		packages: []string{"cmd/ipsync"},
		allowed:  []string{"internal/cli"},
	},
}

// covers reports whether pattern ("x" or "x/...") covers pkg.
func covers(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

func coveredBy(patterns []string, pkg string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return covers(p, pkg) })
}

// violations lists what the rule forbids that pkg imports.
func (r rule) violations(pkg string, imports []string) []string {
	if !coveredBy(r.packages, pkg) {
		return nil
	}
	var out []string
	for _, imp := range imports {
		own, inModule := strings.CutPrefix(imp, module)
		switch {
		case inModule && own == pkg:
		case inModule && coveredBy(r.denied, own):
			out = append(out, own)
		case inModule && r.allowed != nil && !coveredBy(r.allowed, own):
			out = append(out, own)
		case !inModule && slices.Contains(r.std, imp):
			out = append(out, imp)
		}
	}
	return out
}

// TestLayers checks every package of the module, as go list sees its
// non-test imports, against the rules.
func TestLayers(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok {
			continue
		}
		for _, r := range rules {
			for _, p := range r.packages {
				if covers(p, pkg) {
					seen[p] = true
				}
			}
			if bad := r.violations(pkg, fields[1:]); len(bad) > 0 {
				t.Errorf("%s imports %s: %s", pkg, strings.Join(bad, ", "), r.what)
			}
		}
	}
	// A rule about a package that is gone would pass forever.
	for _, r := range rules {
		for _, p := range r.packages {
			if !seen[p] {
				t.Errorf("rule %q covers %s, which is no package of the module (moved? update the rule)", r.what, path.Clean(p))
			}
		}
	}
}

// TestRuleViolations: each kind of rule fails on the import it forbids.
func TestRuleViolations(t *testing.T) {
	tests := []struct {
		rule    int
		pkg     string
		imports []string
		want    []string
	}{
		{0, "internal/plan", []string{"fmt", module + "internal/resource"}, nil},
		{0, "internal/plan", []string{"net/http", module + "internal/httpapi"}, []string{"net/http", "internal/httpapi"}},
		{1, "internal/bulkwrite", []string{module + "internal/nautobot"}, []string{"internal/nautobot"}},
		{1, "internal/httpapi", []string{module + "internal/netbox/netboxtest", module + "internal/clock"}, []string{"internal/netbox/netboxtest"}},
		{2, "internal/netbox", []string{module + "internal/agent", module + "internal/httpapi"}, []string{"internal/agent"}},
		{3, "internal/nautobot/servertest", []string{module + "internal/netbox"}, []string{"internal/netbox"}},
		{5, "internal/nautobot/emulator", []string{module + "internal/reqcount", module + "internal/nautobot"}, []string{"internal/nautobot"}},
		{6, "cmd/ipsync", []string{"os", module + "internal/cli", module + "internal/agent"}, []string{"internal/agent"}},
		{6, "internal/cli", []string{module + "internal/agent"}, nil},
	}
	for _, tt := range tests {
		if got := rules[tt.rule].violations(tt.pkg, tt.imports); !slices.Equal(got, tt.want) {
			t.Errorf("rule %d on %s importing %v = %v, want %v", tt.rule, tt.pkg, tt.imports, got, tt.want)
		}
	}
}

// testSupport lists the module's packages among pkgs that exist for tests
// alone: by Go's convention (net/http/httptest) their names end in "test".
func testSupport(pkgs []string) []string {
	var out []string
	for _, p := range pkgs {
		if own, ok := strings.CutPrefix(p, module); ok && strings.HasSuffix(path.Base(own), "test") {
			out = append(out, own)
		}
	}
	return out
}

// TestShippedBinaryLinksNoTestSupport: ipsync's binary links none of the
// module's test support (harnesses, fault injection, fake clocks), only
// what runs in production and what ipsync demo serves. go test links the
// rest into test binaries alone.
func TestShippedBinaryLinksNoTestSupport(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./cmd/ipsync")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderr.String())
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, module+"internal/nautobot/emulator") {
		t.Errorf("cmd/ipsync no longer links internal/nautobot/emulator: does ipsync demo still serve it? (update this test)")
	}
	if bad := testSupport(deps); len(bad) > 0 {
		t.Errorf("cmd/ipsync links test support: %s", strings.Join(bad, ", "))
	}
}

func TestTestSupport(t *testing.T) {
	pkgs := []string{"fmt", "net/http/httptest", module + "internal/nautobot/emulator", module + "internal/nautobot/emulator/emulatortest",
		module + "internal/nautobot/servertest", module + "internal/clock/clocktest", module + "internal/cli"}
	want := []string{"internal/nautobot/emulator/emulatortest", "internal/nautobot/servertest", "internal/clock/clocktest"}
	if got := testSupport(pkgs); !slices.Equal(got, want) {
		t.Errorf("testSupport(%v) = %v, want %v", pkgs, got, want)
	}
}

// TestShippedBinaryServesNoChangeLog: the emulator's change log endpoints,
// which only tests read, are linked only where WithChangeLog is named, and
// ipsync demo does not name it. An import rule cannot see this: the code
// is in the package the demo imports, left out by the linker.
func TestShippedBinaryServesNoChangeLog(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ipsync")
	}
	bin := filepath.Join(t.TempDir(), "ipsync")
	build := exec.Command("go", "build", "-o", bin, "./cmd/ipsync")
	build.Dir = "../.."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm: %v", err)
	}
	const emu = module + "internal/nautobot/emulator."
	linked := map[string]bool{}
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) == 3 {
			if m, ok := strings.CutPrefix(f[2], emu); ok {
				linked[m] = true
			}
		}
	}
	// The demo's server is there, so the names below are the right ones.
	if !linked["(*Handler).serve"] {
		t.Fatalf("ipsync links no %s(*Handler).serve: is the emulator renamed? (update this test)", emu)
	}
	for _, m := range []string{"(*Handler).objectChanges", "(*Handler).matchingChanges", "changeFilters", "(*Handler).contentTypes", "contentTypeFilters"} {
		if linked[m] {
			t.Errorf("ipsync links %s%s, which only WithChangeLog serves", emu, m)
		}
	}
}
