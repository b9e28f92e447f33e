package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// repoRoot is taken while the working directory is still this package's.
var repoRoot, _ = filepath.Abs("../..")

// run runs ipsync in-process from the repository root, so paths in tests
// read like the README's commands.
func run(t testing.TB, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if wd, _ := os.Getwd(); wd != repoRoot {
		t.Chdir(repoRoot)
	}
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, func(k string) string { return env[k] }, &out, &errb)
	return code, out.String(), errb.String()
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  []string // fragments of stderr
	}{
		{name: "examples are valid", args: []string{"validate", "examples/"}},
		{name: "invalid file names file, line and field", args: []string{"validate", "internal/spec/testdata/invalid-vid-outside-group-range.yaml"},
			wantCode: 1, wantErr: []string{"invalid-vid-outside-group-range.yaml:6:11: vid:"}},
		{name: "unknown field", args: []string{"validate", "internal/spec/testdata/invalid-unknown-field.yaml"},
			wantCode: 1, wantErr: []string{"invalid-unknown-field.yaml:"}},
		{name: "missing path", args: []string{"validate", "no/such/dir"}, wantCode: 1, wantErr: []string{"no/such/dir"}},
		{name: "no path is a usage error", args: []string{"validate"}, wantCode: ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, nil, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit = %d, want %d; stderr:\n%s", code, tt.wantCode, stderr)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

func TestEveryInvalidCorpusFileFails(t *testing.T) {
	files, err := filepath.Glob("../spec/testdata/invalid-*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no invalid corpus: %v", err)
	}
	for _, f := range files {
		rel := filepath.Join("internal/spec/testdata", filepath.Base(f))
		code, _, stderr := run(t, nil, "validate", rel)
		if code != 1 || !strings.Contains(stderr, rel+":") {
			t.Errorf("validate %s = exit %d, stderr %q; want exit 1 naming the file", rel, code, stderr)
		}
	}
}

func TestPlanMemoryShowsCreates(t *testing.T) {
	code, stdout, stderr := run(t, nil, "plan", "--target", "memory", "-o", "json", "examples/")
	if code != ExitChanges {
		t.Fatalf("plan exit %d: %s", code, stderr)
	}
	var doc struct {
		FormatVersion int `json:"format_version"`
		Changes       []struct {
			Action string            `json:"action"`
			Kind   string            `json:"kind"`
			Key    string            `json:"key"`
			Fields []json.RawMessage `json:"fields"`
		} `json:"changes"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("plan -o json is not JSON: %v", err)
	}
	if doc.FormatVersion != 1 || len(doc.Changes) < 40 {
		t.Fatalf("format_version %d, %d changes; want 1 and every example object", doc.FormatVersion, len(doc.Changes))
	}
	for _, c := range doc.Changes {
		if c.Action != "create" || c.Kind == "" || c.Key == "" || len(c.Fields) == 0 {
			t.Errorf("change %+v: want a create with kind, key and fields", c)
		}
	}
	code, text, _ := run(t, nil, "plan", "--target", "memory", "examples/")
	if code != ExitChanges || !strings.Contains(text, "+ create vlan a11-12-network/100") {
		t.Errorf("text plan lacks the create of a11-12-network/100:\n%s", text)
	}
}

func TestPlanSavedAndAppliedToMemory(t *testing.T) {
	out := filepath.Join(t.TempDir(), "plan.json")
	if code, _, stderr := run(t, nil, "plan", "--target", "memory", "--out", out, "examples/"); code != ExitChanges {
		t.Fatalf("plan --out: %s", stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, nil, "apply", "--plan", out)
	if code != 0 || !strings.Contains(stderr, "dry run") {
		t.Errorf("apply without --commit = exit %d, %q; want a dry run", code, stderr)
	}
}

// TestVersion runs `ipsync version` and `ipsync --version` with the
// variables set as -ldflags -X sets them, and without.
func TestVersion(t *testing.T) {
	for _, tt := range []struct {
		name            string
		version, commit string
		args            []string
		want            string
	}{
		{"set by ldflags", "v1.2.3", "0123456789abcdef0123456789abcdef01234567", []string{"version"},
			"ipsync v1.2.3 (commit 0123456789abcdef0123456789abcdef01234567, plan format 1)\n"},
		{"--version prints the same", "v1.2.3", "0123456789abcdef0123456789abcdef01234567", []string{"--version"},
			"ipsync v1.2.3 (commit 0123456789abcdef0123456789abcdef01234567, plan format 1)\n"},
		// A test binary carries no VCS stamp.
		{"not set", "dev", "", []string{"version"}, "ipsync dev (commit unknown, plan format 1)\n"},
		{"--version, not set", "dev", "", []string{"--version"}, "ipsync dev (commit unknown, plan format 1)\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, c := Version, Commit
			t.Cleanup(func() { Version, Commit = v, c })
			Version, Commit = tt.version, tt.commit
			code, out, stderr := run(t, nil, tt.args...)
			if code != 0 || out != tt.want {
				t.Errorf("ipsync %s = exit %d, %q (stderr %q); want exit 0, %q", strings.Join(tt.args, " "), code, out, stderr, tt.want)
			}
		})
	}
}

// TestCommitFallback: without -ldflags the revision comes from what go
// build stamps into the binary.
func TestCommitFallback(t *testing.T) {
	stamped := func(settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{}
		for i := 0; i < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	for _, tt := range []struct {
		name string
		set  string
		info *debug.BuildInfo
		want string
	}{
		{"ldflags win", "abc1234", stamped("vcs.revision", "def5678"), "abc1234"},
		{"stamped revision", "", stamped("vcs", "git", "vcs.revision", "def5678", "vcs.modified", "false"), "def5678"},
		{"stamped from a changed tree", "", stamped("vcs.revision", "def5678", "vcs.modified", "true"), "def5678-dirty"},
		{"no stamp", "", stamped("-trimpath", "true"), "unknown"},
		{"no build info", "", nil, "unknown"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := commit(tt.set, tt.info); got != tt.want {
				t.Errorf("commit(%q, ...) = %q, want %q", tt.set, got, tt.want)
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	// --version has no shorthand: -v would read as --verbose elsewhere.
	if code, _, _ := run(t, nil, "-v"); code != ExitUsage {
		t.Errorf("-v exit = %d, want %d", code, ExitUsage)
	}
	if code, _, _ := run(t, nil, "no-such-command"); code != ExitUsage {
		t.Errorf("unknown command exit = %d, want %d", code, ExitUsage)
	}
	if code, _, _ := run(t, nil, "plan", "--target", "memory", "--output", "yaml", "examples/"); code != ExitUsage {
		t.Errorf("bad --output exit = %d, want %d", code, ExitUsage)
	}
}
