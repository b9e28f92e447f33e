package drift

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/browsertest"
)

// TestLargeReportInABrowser opens the HTML report of 50,000 drifting
// objects, saved to a file, in a real headless Chromium: the sums show
// first and the groups folded. How long the browser took is logged, not
// asserted: it depends on the machine.
func TestLargeReportInABrowser(t *testing.T) {
	chromium := browsertest.New(t)
	r := largeReport(50000)
	path := filepath.Join(t.TempDir(), "drift.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WriteHTML(f, HTML{}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + path

	start := time.Now()
	dom := chromium.DOM(t, url)
	t.Logf("Chromium loaded and serialized the report of %d objects (%d bytes) in %v", r.Count(), info.Size(), time.Since(start).Round(time.Millisecond))
	for _, want := range []string{
		"50000 objects drift, 50 leaks.",
		"<strong>ip_address</strong>: 20000 <small>(100 listed)</small>",
		"19900 more not listed here",
		"Global/10.0.0.0",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the browser's report lacks %q", want)
		}
	}
	start = time.Now()
	chromium.Screenshot(t, url, "drift-report-50k")
	t.Logf("Chromium rendered its screenshot in %v", time.Since(start).Round(time.Millisecond))
}
