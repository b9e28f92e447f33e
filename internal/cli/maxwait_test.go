package cli

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPlanGivesUpOnASilentServerAtMaxWait tries what a new user meets
// with a server that takes connections and never answers: plan says
// what it waits for while it waits, and gives up once another attempt
// could not end within the section's max_wait, naming the setting.
func TestPlanGivesUpOnASilentServerAtMaxWait(t *testing.T) {
	addr := silentListener(t)
	token := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(token, []byte("0123456789abcdef0123456789abcdef01234567"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, section := range []string{"nautobot", "netbox"} {
		t.Run(section, func(t *testing.T) {
			cfg := writeConfig(t, fmt.Sprintf("spec: {paths: [%q]}\n%s: {url: \"http://%s\", token_file: %q, timeout: 1s, max_wait: 4s}\n",
				filepath.Join(repoRoot, "examples"), section, addr, token))
			start := time.Now()
			code, _, stderr := run(t, nil, "plan", "--config", cfg)
			took := time.Since(start)
			if code != ExitError {
				t.Errorf("plan against a silent server: exit %d, want %d\n%s", code, ExitError, stderr)
			}
			for _, want := range []string{section + " has not answered yet", "giving up after", section + ".max_wait (4s)"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("plan's output lacks %q:\n%s", want, stderr)
				}
			}
			t.Logf("gave up after %v", took.Round(100*time.Millisecond))
		})
	}
}

// silentListener takes connections and never answers them.
func silentListener(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}
