package cli

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/emulator/emulatortest"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/netbox/netboxtest"
	"github.com/ipsync/ipsync/internal/syncbuf"
)

// TestInterruptedApplyCountsWhatItWrote interrupts an apply of 400
// VLANs once the first are written, as Ctrl-C does: the writes already
// sent are finished, no more are sent, and the count it reports is what
// the server holds, so the next plan creates exactly the rest.
func TestInterruptedApplyCountsWhatItWrote(t *testing.T) {
	eachNautobot(t, func(t *testing.T, s *servertest.Server) {
		if emu := s.Emulator(); emu != nil {
			// The emulator answers at once; a real server takes this long.
			emu.Inject(emulatortest.Fault{Method: "POST", PathPrefix: "/api/ipam/vlans/", Latency: 300 * time.Millisecond})
		}
		interruptedApply(t, nautobotTarget(s))
	})
	t.Run("netbox", func(t *testing.T) { interruptedApply(t, netboxTarget(netboxtest.New(t))) })
}

func interruptedApply(t *testing.T, g *target) {
	e := newTargetEnv(t, g)
	cfg, err := os.ReadFile(e.cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Small batches, so that many are sent one after another.
	if err := os.WriteFile(e.cfg, []byte(strings.Replace(string(cfg), "}\nallowed_hosts", ", batch_size: 10, concurrency: 2}\nallowed_hosts", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	var spec strings.Builder
	spec.WriteString("vlan_groups:\n  - {name: a11-12-network, location: DC-A11, range: \"100-999\"}\nvlans:\n")
	for i := range 400 {
		fmt.Fprintf(&spec, "  - {vid: %d, name: v%d, vlan_group: a11-12-network}\n", 100+i, 100+i)
	}
	if err := os.WriteFile(e.spec, []byte(spec.String()), 0o600); err != nil {
		t.Fatal(err)
	}

	first, interrupt := context.WithCancel(context.Background())
	defer interrupt()
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		// As cmd/ipsync runs it: the first interrupt cancels first, and
		// there is no second.
		var stdout, stderr syncbuf.Buffer
		code := Main(WithSecondInterrupt(first, context.Background()), []string{"apply", "--config", e.cfg, "--commit"},
			func(string) string { return "" }, &stdout, &stderr)
		done <- result{code, stderr.String()}
	}()
	deadline := time.Now().Add(2 * time.Minute)
	for g.Count(t, "ipam.vlan") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no VLAN written after 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	interrupt()
	r := <-done
	m := regexp.MustCompile(`interrupted: (\d+) objects? written to`).FindStringSubmatch(r.stderr)
	if r.code != ExitError || m == nil {
		t.Fatalf("an interrupted apply: exit %d, want %d and how many objects it wrote:\n%s", r.code, ExitError, r.stderr)
	}
	reported, _ := strconv.Atoi(m[1])
	held := g.Count(t, "ipam.vlangroup") + g.Count(t, "ipam.vlan")
	t.Logf("reported %d, held %d:\n%s", reported, held, r.stderr)
	if reported != held || held >= 401 {
		t.Errorf("the interrupted apply reports %d objects written; the server holds %d of the plan's 401:\n%s", reported, held, r.stderr)
	}
	if !strings.Contains(r.stderr, "finishing the writes already sent") || !strings.Contains(r.stderr, "not sent") {
		t.Errorf("the interrupted apply does not say what it finished and what it left:\n%s", r.stderr)
	}
}
