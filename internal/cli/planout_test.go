package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutCheckedFirst: --out to a place no file can be made is a usage
// error said before anything is read, and a plan saved replaces the file at
// its path whole, leaving nothing else beside it.
func TestOutCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	for _, command := range []string{"plan", "drift"} {
		missing := filepath.Join(dir, "no-such-dir", command+".out")
		// A spec path that does not exist either: were the plan made
		// first, that would be the error.
		code, out, errOut := run(t, nil, command, "--target", "memory", "--out", missing, filepath.Join(dir, "no-spec"))
		if code != ExitUsage || out != "" || !strings.Contains(errOut, "--out "+missing+": cannot write there") {
			t.Errorf("%s --out %s = exit %d, stdout %q, stderr %q; want 64 naming --out", command, missing, code, out, errOut)
		}
	}

	if code, _, errOut := run(t, nil, "plan", "--target", "memory", "--out", dir, "examples/"); code != ExitUsage || !strings.Contains(errOut, "is a directory") {
		t.Errorf("plan --out DIR = exit %d: %s; want 64 saying it is a directory", code, errOut)
	}
	// A file that is not a regular one is written as it is.
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() { b, _ := os.ReadFile(fifo); got <- b }()
	if code, _, errOut := run(t, nil, "plan", "--target", "memory", "--out", fifo, "examples/"); code != ExitChanges {
		t.Errorf("plan --out FIFO = exit %d: %s", code, errOut)
	}
	if b := <-got; !strings.Contains(string(b), `"fingerprint"`) {
		t.Errorf("the FIFO got %.200q, want the plan's JSON", b)
	}

	saved := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(saved, []byte("an older plan"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, nil, "plan", "--target", "memory", "--out", saved, "examples/"); code != ExitChanges {
		t.Fatalf("plan --out = exit %d: %s", code, errOut)
	}
	if p, target, err := readPlanFile(saved); err != nil {
		t.Errorf("the saved plan: %v", err)
	} else if target != "memory" || p.Writes() != 56 {
		t.Errorf("the saved plan reads as %d writes to %q; want 56 to memory", p.Writes(), target)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the directory holds %v, want only plan.json", names)
	}
	if fi, err := os.Stat(saved); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("saved plan: %v, mode %v; want 0644", err, fi.Mode().Perm())
	}
}
