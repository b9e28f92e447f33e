// Package browsertest opens pages in a real headless Chromium for tests:
// the DOM the browser built, and a screenshot kept as a test artifact.
//
//	IPSYNC_CHROMIUM   the chromium binary (Debian: /usr/bin/chromium); tests skip without it
//	IPSYNC_ARTIFACTS  where screenshots are kept (default: the test's temporary directory)
package browsertest

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Chromium runs one headless browser per call, each with a new, empty
// profile, so that nothing carries over between pages or runs.
type Chromium struct {
	bin       string
	artifacts string
}

// New returns the Chromium that IPSYNC_CHROMIUM names, or skips the test.
func New(t testing.TB) *Chromium {
	t.Helper()
	bin := os.Getenv("IPSYNC_CHROMIUM")
	if bin == "" {
		t.Skip("set IPSYNC_CHROMIUM to a chromium binary (apt-get install chromium; /usr/bin/chromium) to check pages in a real browser")
	}
	dir := os.Getenv("IPSYNC_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("artifacts directory: %v", err)
	}
	return &Chromium{bin: bin, artifacts: dir}
}

// run starts the browser on url with extra flags and returns its stdout.
func (c *Chromium) run(t testing.TB, url string, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{
		// As root in CI: no sandbox. No network of its own, no updates,
		// no first-run pages: the page under test is all it loads.
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--window-size=1280,1400",
	}, extra...)
	cmd := exec.CommandContext(ctx, c.bin, append(args, url)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", c.bin, url, err, stderr.String())
	}
	return stdout.Bytes()
}

// DOM is the document as the browser built it from url, serialized.
func (c *Chromium) DOM(t testing.TB, url string) string {
	t.Helper()
	return string(c.run(t, url, "--dump-dom"))
}

// DOMAfter is the document once the page has run for d of the browser's
// virtual time: timers fire and a meta refresh reloads it, without the
// test waiting d. A page that reloads itself for ever must be served so
// that a later load does not, or the browser does not stop.
func (c *Chromium) DOMAfter(t testing.TB, url string, d time.Duration) string {
	t.Helper()
	return string(c.run(t, url, "--dump-dom", "--virtual-time-budget="+strconv.FormatInt(d.Milliseconds(), 10)))
}

// Screenshot renders url to name.png in the artifacts directory and
// fails the test unless the image shows something: more than a blank
// page's few colours.
func (c *Chromium) Screenshot(t testing.TB, url, name string) string {
	t.Helper()
	path := filepath.Join(c.artifacts, name+".png")
	c.run(t, url, "--screenshot="+path, "--hide-scrollbars")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("screenshot of %s: %v", url, err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	if n := colours(img, 64); n < 8 {
		t.Errorf("screenshot %s shows %d colours: the page did not render", path, n)
	}
	t.Logf("screenshot: %s", path)
	return path
}

// colours counts the distinct colours of img, up to limit.
func colours(img image.Image, limit int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}
