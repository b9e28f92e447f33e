package layers

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The two dialects must not grow back into two copies of one engine: what
// they share belongs in the engine, where a fix lands once. The measure:
// a dialect's code lines (trimmed; no blank line, comment, package clause
// or import; tests left out; the servers' names made one word) that belong to a run of 4 lines
// found identically in the other dialect, as a share of its code lines.
//
//	go test ./internal/layers -run TestDialectOverlap -v
const (
	overlapRun   = 4
	overlapLimit = 0.10
)

var serverNames = regexp.MustCompile(`(?i)nautobot|netbox`)

// codeLines reads the non-test Go files of dir (not below it) as the
// measure sees them.
func codeLines(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, normalise(string(b))...)
	}
	return lines
}

func normalise(src string) []string {
	var lines []string
	inBlock, inImport := false, false
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimSpace(l)
		// The package clause and imports are no code: every file has
		// them, and the same imports are no shared logic.
		switch {
		case inImport:
			inImport = l != ")"
			continue
		case l == "import (":
			inImport = true
			continue
		case strings.HasPrefix(l, "package ") || strings.HasPrefix(l, "import "):
			continue
		}
		if inBlock {
			if _, rest, ok := strings.Cut(l, "*/"); ok {
				inBlock, l = false, strings.TrimSpace(rest)
			} else {
				continue
			}
		}
		if strings.HasPrefix(l, "/*") && !strings.Contains(l, "*/") {
			inBlock = true
			continue
		}
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		lines = append(lines, serverNames.ReplaceAllString(l, "SOT"))
	}
	return lines
}

var word = regexp.MustCompile(`\w`)

// overlap is the share of a's lines inside a run of overlapRun lines that
// b holds too. A run of nothing but brackets (the ends of nested blocks)
// is no shared logic, as token-based duplicate finders see it too.
func overlap(a, b []string) (shared, total int) {
	runs := map[string]bool{}
	for i := 0; i+overlapRun <= len(b); i++ {
		runs[strings.Join(b[i:i+overlapRun], "\n")] = true
	}
	in := make([]bool, len(a))
	for i := 0; i+overlapRun <= len(a); i++ {
		run := strings.Join(a[i:i+overlapRun], "\n")
		if runs[run] && word.MatchString(run) {
			for j := i; j < i+overlapRun; j++ {
				in[j] = true
			}
		}
	}
	for _, v := range in {
		if v {
			shared++
		}
	}
	return shared, len(a)
}

func TestDialectOverlap(t *testing.T) {
	nautobot := codeLines(t, "../nautobot")
	netbox := codeLines(t, "../netbox")
	for _, c := range []struct {
		name  string
		a, b  []string
		other string
	}{
		{"internal/nautobot", nautobot, netbox, "internal/netbox"},
		{"internal/netbox", netbox, nautobot, "internal/nautobot"},
	} {
		shared, total := overlap(c.a, c.b)
		share := float64(shared) / float64(total)
		t.Logf("%s: %d of %d code lines (%.1f%%) repeat %s", c.name, shared, total, 100*share, c.other)
		if share >= overlapLimit {
			t.Errorf("%s repeats %.1f%% of its code lines from %s (limit %.1f%%): move what they share into the engine", c.name, 100*share, c.other, 100*overlapLimit)
		}
	}
}

func TestOverlapMeasure(t *testing.T) {
	a := normalise("package nautobot\nimport (\n\t\"fmt\"\n\t\"net/url\"\n)\n// why\nx := 1\n\ny := nautobot.Get()\nz := 3\nw := 4\nonly := 5\n")
	b := normalise("package netbox\nimport (\n\t\"fmt\"\n\t\"net/url\"\n)\n/* block\n comment */\nx := 1\ny := netbox.Get()\nz := 3\nw := 4\nother := 6\n")
	if shared, total := overlap(a, b); shared != 4 || total != 5 {
		t.Errorf("overlap = %d of %d, want 4 of 5 (4 lines, names made one; no package clause or import)", shared, total)
	}
	brackets := []string{"}", "})", "}", "}", ")"}
	if shared, _ := overlap(brackets, brackets); shared != 0 {
		t.Errorf("a run of brackets counted: %d", shared)
	}
	if shared, _ := overlap(a[:3], b); shared != 0 {
		t.Errorf("a run shorter than %d lines counted: %d", overlapRun, shared)
	}
}
