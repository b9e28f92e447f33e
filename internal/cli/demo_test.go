package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestDemoRunsAnywhere: the demo needs nothing from the working directory
// (its spec is built in), shows the config it uses, prints each plan once
// as a summary, and fits on a screen or two.
func TestDemoRunsAnywhere(t *testing.T) {
	t.Chdir(t.TempDir())
	var out bytes.Buffer
	// A token exported for a real Nautobot is not the emulator's.
	code := Main(context.Background(), []string{"demo"}, func(k string) string {
		if k == "IPSYNC_NAUTOBOT_TOKEN" {
			return "a-token-for-some-real-nautobot"
		}
		return ""
	}, &out, &out)
	text := out.String()
	if code != ExitOK {
		t.Fatalf("demo from an empty directory = exit %d:\n%s", code, text)
	}
	if n := strings.Count(text, "\n"); n > 80 {
		t.Errorf("demo printed %d lines, want at most 80:\n%s", n, text)
	}
	for _, want := range []string{
		"$ cat ipsync.yaml\nspec: {name: demo, paths: [examples]}",
		"$ ipsync validate examples\n63 objects in 3 files: valid",
		"$ ipsync plan --config ipsync.yaml --out plan.json --summary\n",
		"56 changes not listed",
		"applied: 56 objects written",
		"No changes: the target matches.",
		"static:demo: in agreement",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("demo output lacks %q:\n%s", want, text)
		}
	}
	// Two plans, each shown once: apply of the saved plan does not repeat it.
	if n := strings.Count(text, "Plan for owner"); n != 2 {
		t.Errorf("demo shows %d plans, want 2 (before and after the apply):\n%s", n, text)
	}
	checkGrammar(t, "demo", text)

	out.Reset()
	if code := Main(context.Background(), []string{"demo", "--verbose"}, func(string) string { return "" }, &out, &out); code != ExitOK ||
		!strings.Contains(out.String(), "+ create vlan a11-12-network/100") {
		t.Errorf("demo --verbose = exit %d, without each change:\n%s", code, out.String())
	}
}

func TestPlanSummary(t *testing.T) {
	code, out, _ := run(t, nil, "plan", "--target", "memory", "--summary", "examples/")
	if code != ExitChanges || !strings.Contains(out, "total      56") || strings.Contains(out, "+ create") || !strings.Contains(out, "56 changes not listed") {
		t.Errorf("plan --summary = exit %d:\n%s", code, out)
	}
}
