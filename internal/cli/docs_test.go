package cli

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/ipsync/ipsync/internal/config"
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

// TestEveryCommandHasWorkingExamples checks that each command's help shows
// examples, and that every ipsync command line in them names a command
// and flags that exist: an example that no longer runs is worse than none.
func TestEveryCommandHasWorkingExamples(t *testing.T) {
	root := newRoot(&env{getenv: func(string) string { return "" }, stdout: io.Discard, stderr: io.Discard})
	for _, cmd := range root.Commands() {
		if cmd.Hidden || cmd.Name() == "help" || cmd.Name() == "completion" {
			continue
		}
		if strings.TrimSpace(cmd.Example) == "" {
			t.Errorf("ipsync %s --help shows no example", cmd.Name())
			continue
		}
		for line := range strings.SplitSeq(cmd.Example, "\n") {
			// Each "ipsync ..." of the line, up to a comment, pipe or &&.
			for _, part := range strings.Split(line, "&&") {
				part, _, _ = strings.Cut(part, "#")
				part, _, _ = strings.Cut(part, "|")
				words := strings.Fields(part)
				if len(words) == 0 || words[0] != "ipsync" {
					continue
				}
				sub, rest, err := root.Find(words[1:])
				if err == nil {
					err = sub.ParseFlags(rest) // the root's own: ipsync --version
				}
				if err != nil {
					t.Errorf("example %q: %v", strings.TrimSpace(part), err)
				}
			}
		}
	}
}

// TestREADMEDocumentsEveryConfigKey: each key of the config file is in the
// README's example config (as "key:"), or named by its whole path
// (`agent.lease_ttl`) or in a setting (`location_scope: location`)
// somewhere.
func TestREADMEDocumentsEveryConfigKey(t *testing.T) {
	doc := readme(t)
	// Parsed, never used: to be removed or given a meaning, not documented.
	unused := map[string]bool{"sites.location": true}
	start := strings.Index(doc, "## Configuration")
	example := doc[start : start+strings.Index(doc[start:], "\n```\n")]
	var walk func(typ reflect.Type, prefix string)
	walk = func(typ reflect.Type, prefix string) {
		for f := range typ.Fields() {
			key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if key == "" || key == "-" {
				continue
			}
			ft := f.Type
			if ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				walk(ft, prefix+key+".")
				continue
			}
			if !unused[prefix+key] && !strings.Contains(example, key+":") && !strings.Contains(doc, "`"+prefix+key+"`") && !strings.Contains(doc, "`"+key+": ") {
				t.Errorf("README does not document the config key %s%s", prefix, key)
			}
		}
	}
	walk(reflect.TypeFor[config.Config](), "")
}
