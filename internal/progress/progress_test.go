package progress

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/syncbuf"
)

func TestLogLines(t *testing.T) {
	var log bytes.Buffer
	d := New(&bytes.Buffer{}, false, slog.New(slog.NewTextHandler(&log, nil)), 0)
	d.Expect("write vlan", 3)
	d.Add("write vlan", 2)
	d.Add("read neutron ports", 5)
	d.Flush()
	for _, want := range []string{
		`msg=progress what="write vlan" done=2 total=3`,
		`msg=progress what="read neutron ports" done=5`,
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	if strings.Contains(log.String(), `"read neutron ports" done=5 total`) {
		t.Errorf("a read without a known total logged one:\n%s", log.String())
	}
	// A phase after Flush starts from zero.
	log.Reset()
	d.Add("write vlan", 1)
	d.Flush()
	if !strings.Contains(log.String(), `what="write vlan" done=1`) || strings.Contains(log.String(), "total") {
		t.Errorf("second phase:\n%s", log.String())
	}
}

func TestNilDisplayDoesNothing(t *testing.T) {
	var d *Display
	d.Expect("x", 1)
	d.Add("x", 1)
	d.Flush()
}

// TestLinesWhileWaiting: without a terminal, a line comes every interval
// while a phase runs, the ones while nothing is done saying how long it
// has waited; none after the phase ends.
func TestLinesWhileWaiting(t *testing.T) {
	var log syncbuf.Buffer
	d := New(&bytes.Buffer{}, false, slog.New(slog.NewTextHandler(&log, nil)), 20*time.Millisecond)
	d.Expect("write vlan", 239)
	time.Sleep(70 * time.Millisecond)
	d.Add("write vlan", 239)
	d.Flush()
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) < 3 {
		t.Fatalf("%d lines in 70ms at one every 20ms and at the end:\n%s", len(lines), log.String())
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.Contains(l, `what="write vlan" done=0 total=239`) || !strings.Contains(l, "waiting=") {
			t.Errorf("a line while the server has the batch: %s", l)
		}
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "done=239 total=239") || strings.Contains(last, "eta=") || strings.Contains(last, "waiting=") {
		t.Errorf("the last line: %s", last)
	}
	n := len(strings.Split(log.String(), "\n"))
	time.Sleep(60 * time.Millisecond)
	if m := len(strings.Split(log.String(), "\n")); m != n {
		t.Errorf("lines after Flush:\n%s", log.String())
	}
}

// TestShortPhaseLogsNothing: a phase over before the first interval
// has nothing to report.
func TestShortPhaseLogsNothing(t *testing.T) {
	var log syncbuf.Buffer
	d := New(&bytes.Buffer{}, false, slog.New(slog.NewTextHandler(&log, nil)), time.Hour)
	d.Expect("write vlan", 3)
	d.Add("write vlan", 3)
	d.Flush()
	if log.String() != "" {
		t.Errorf("a short phase logged:\n%s", log.String())
	}
}
