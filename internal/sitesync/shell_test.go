package sitesync

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// shellDriver runs in nautobot-server shell: each line of stdin is a JSON
// string of Python, run in a namespace of its own; after each it prints
// the end marker, with the traceback first if it failed.
const shellDriver = `
import json, sys, traceback
for line in sys.stdin:
    try:
        exec(json.loads(line), {})
        print("IPSYNC-END ok", flush=True)
    except Exception:
        traceback.print_exc(file=sys.stdout)
        print("IPSYNC-END failed", flush=True)
`

// shellSession is one nautobot-server shell kept running for many
// scripts: starting one loads Nautobot whole, seconds of a busy core,
// which a randomized run would pay at every Job-style edit.
type shellSession struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// startShell starts the session with the command line that runs the
// server's shell (servertest.Server.Shell); it ends with the test.
func startShell(t *testing.T, shell string) *shellSession {
	t.Helper()
	cmd := exec.Command("sh", "-c", shell+" --command \"$IPSYNC_SHELL_DRIVER\"")
	cmd.Env = append(cmd.Environ(), "IPSYNC_SHELL_DRIVER="+shellDriver)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("start nautobot-server shell: %v", err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	return &shellSession{cmd: cmd, in: in, out: sc}
}

// run runs script and returns what it printed.
func (s *shellSession) run(script string) (string, error) {
	line, err := json.Marshal(script)
	if err != nil {
		return "", err
	}
	if _, err := fmt.Fprintf(s.in, "%s\n", line); err != nil {
		return "", fmt.Errorf("nautobot-server shell: %w", err)
	}
	var printed strings.Builder
	for s.out.Scan() {
		switch text := s.out.Text(); text {
		case "IPSYNC-END ok":
			return printed.String(), nil
		case "IPSYNC-END failed":
			return printed.String(), fmt.Errorf("the script failed in nautobot-server shell:\n%s", printed.String())
		default:
			printed.WriteString(text + "\n")
		}
	}
	return printed.String(), fmt.Errorf("nautobot-server shell ended (%v):\n%s", s.out.Err(), printed.String())
}
