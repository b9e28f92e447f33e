package progress

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
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
