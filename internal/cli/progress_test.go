package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/creack/pty"

	"github.com/ipsync/ipsync/internal/nautobot/nbtest"
)

// progressEnv is a Nautobot, a spec of n VLANs and a config that reads in
// pages of 100, so that a read of them takes several pages.
func progressEnv(t *testing.T, srv *nbtest.Server, n int) string {
	e := newSpecEnv(t, srv)
	var b strings.Builder
	b.WriteString("vlan_groups:\n  - {name: a11-12-network, location: DC-A11}\nvlans:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {vid: %d, name: v%d, vlan_group: a11-12-network}\n", 100+i, 100+i)
	}
	if err := os.WriteFile(e.spec, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, _ := os.ReadFile(e.cfg)
	paged := strings.Replace(string(cfg), "nautobot: {", "nautobot: {page_size: 100, ", 1)
	if err := os.WriteFile(e.cfg, []byte(paged), 0o600); err != nil {
		t.Fatal(err)
	}
	return e.cfg
}

// TestProgressOnATerminal: on a terminal, apply shows a bar per kind
// written (done / total, rate) and per paged read, on stderr; stdout
// carries the JSON plan and nothing else.
// The display is ipsync's own whatever the server: the emulator suffices,
// and a real server would only make the test slower.
func TestProgressOnATerminal(t *testing.T) { progressOnATerminal(t, nbtest.Emulator(t)) }

func progressOnATerminal(t *testing.T, srv *nbtest.Server) {
	cfg := progressEnv(t, srv, 600)
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(tty, &pty.Winsize{Rows: 40, Cols: 140}); err != nil {
		t.Fatal(err)
	}
	var screen bytes.Buffer
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = io.Copy(&screen, ptmx) })

	var stdout bytes.Buffer
	code := Main(context.Background(), []string{"apply", "--config", cfg, "--commit", "-o", "json"}, func(string) string { return "" }, &stdout, tty)
	if code != ExitOK {
		t.Fatalf("apply = exit %d", code)
	}
	// A second plan reads the 600 VLANs back, in 6 pages.
	code = Main(context.Background(), []string{"plan", "--config", cfg, "-o", "json"}, func(string) string { return "" }, &stdout, tty)
	if code != ExitOK {
		t.Fatalf("plan after apply = exit %d", code)
	}
	tty.Close()
	wg.Wait()

	got := screen.String()
	for _, want := range []string{"write vlan", "600 / 600", "write vlan_group", "1 / 1", "/s", "read nautobot vlans"} {
		if !strings.Contains(got, want) {
			t.Errorf("terminal lacks %q:\n%q", want, got)
		}
	}
	dec := json.NewDecoder(&stdout)
	for i := range 2 {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("stdout document %d is not JSON: %v\n%s", i, err, stdout.String())
		}
	}
	if rest, _ := io.ReadAll(dec.Buffered()); strings.TrimSpace(string(rest)) != "" || strings.Contains(stdout.String(), "\x1b") {
		t.Errorf("stdout carries more than the plans: %q", rest)
	}
}

// TestProgressInTheLog: without a terminal, progress is structured log
// lines (at info), and stdout is still only the JSON plan.
func TestProgressInTheLog(t *testing.T) { progressInTheLog(t, nbtest.Emulator(t)) }

func progressInTheLog(t *testing.T, srv *nbtest.Server) {
	cfg := progressEnv(t, srv, 300)
	code, out, errOut := run(t, nil, "apply", "--config", cfg, "--commit", "-o", "json", "--log-level", "info")
	if code != ExitOK {
		t.Fatalf("apply = exit %d:\n%s", code, errOut)
	}
	if want := `msg=progress what="write vlan" done=300 total=300`; !strings.Contains(errOut, want) {
		t.Errorf("log lacks %q:\n%s", want, errOut)
	}
	if strings.Contains(errOut, "\x1b[") {
		t.Errorf("terminal codes in a log that is not a terminal:\n%q", errOut)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Errorf("stdout is not the JSON plan: %v\n%s", err, out)
	}
	// The default level keeps a person's terminal-less run quiet.
	_, _, errOut = run(t, nil, "plan", "--config", cfg)
	if strings.Contains(errOut, "progress") {
		t.Errorf("progress logged at the default level:\n%s", errOut)
	}
	_ = filepath.Join
}
