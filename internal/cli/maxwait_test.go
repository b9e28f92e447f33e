package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/serverstall"
)

// TestPlanGivesUpOnASilentServerAtMaxWait tries what a new user meets
// with a server that takes connections and never answers: plan says
// what it waits for while it waits, and gives up once another attempt
// could not end within the section's max_wait, naming the setting.
func TestPlanGivesUpOnASilentServerAtMaxWait(t *testing.T) {
	addr := serverstall.Silent(t)
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
