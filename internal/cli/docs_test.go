package cli

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestREADMEListsEveryFlag: every flag of every command is in the README.
func TestREADMEListsEveryFlag(t *testing.T) {
	doc := readme(t)
	root := newRoot(&env{getenv: func(string) string { return "" }, stdout: io.Discard, stderr: io.Discard})
	for _, cmd := range root.Commands() {
		if cmd.Hidden || cmd.Name() == "help" {
			continue
		}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Deprecated != "" || f.Name == "help" {
				return
			}
			if !strings.Contains(doc, "`--"+f.Name) && !strings.Contains(doc, ", `--"+f.Name) {
				t.Errorf("README does not list %s --%s", cmd.Name(), f.Name)
			}
			if f.Shorthand != "" && !strings.Contains(doc, "`-"+f.Shorthand+"`") {
				t.Errorf("README does not list %s -%s", cmd.Name(), f.Shorthand)
			}
		})
	}
}

var (
	goEnv    = regexp.MustCompile(`[Gg]etenv\("([A-Z][A-Z0-9_]*)"\)|"(IPSYNC_[A-Z0-9_]+)"`)
	shellEnv = regexp.MustCompile(`\$\{([A-Z][A-Z0-9_]*):?[-=?]`)
)

// TestREADMEListsEveryEnvironmentVariable: every variable ipsync, its
// tests, its scripts or CI read is in the README.
func TestREADMEListsEveryEnvironmentVariable(t *testing.T) {
	doc := readme(t)
	found := map[string]string{} // variable -> a file that reads it
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != filepath.Join(repoRoot, ".ci") && path != repoRoot {
			return filepath.SkipDir
		}
		var re *regexp.Regexp
		switch {
		case strings.HasSuffix(path, ".go"):
			re = goEnv
		case strings.HasSuffix(path, ".sh"), path == filepath.Join(repoRoot, ".ci", "run"):
			re = shellEnv
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			name := m[1]
			if name == "" {
				name = m[2]
			}
			found[name], _ = filepath.Rel(repoRoot, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Variables every Unix tool reads, not ipsync's to document.
	standard := []string{"TMPDIR", "HOME", "PATH"}
	if len(found) < 20 {
		t.Fatalf("found only %d variables; is the scan broken? %v", len(found), found)
	}
	for name, where := range found {
		if !slices.Contains(standard, name) && !strings.Contains(doc, name) {
			t.Errorf("README does not list %s (read in %s)", name, where)
		}
	}
}

// TestHelpDocumentsExitCodesAndEnvironment: --help says what the exit codes
// and the variables ipsync itself reads mean.
func TestHelpDocumentsExitCodesAndEnvironment(t *testing.T) {
	_, out, _ := run(t, nil, "--help")
	for _, want := range []string{"Exit status:", "64  usage", "3   refused", "IPSYNC_NAUTOBOT_TOKEN", "IPSYNC_RABBITMQ_PASSWORD", "ipsync completion bash"} {
		if !strings.Contains(out, want) {
			t.Errorf("ipsync --help lacks %q", want)
		}
	}
	for _, cmd := range []string{"plan", "apply", "drift"} {
		if _, out, _ := run(t, nil, cmd, "--help"); !strings.Contains(out, "Exit status:") {
			t.Errorf("ipsync %s --help does not give its exit statuses", cmd)
		}
	}
}
