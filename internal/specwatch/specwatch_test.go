package specwatch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
)

// configMap lays files out in dir as the kubelet mounts a ConfigMap: each
// key a link through ..data to a timestamped directory, which publish
// replaces at once by renaming a new ..data link over the old one.
type configMap struct {
	t   *testing.T
	dir string
	n   int
}

func newConfigMap(t *testing.T, files map[string]string) *configMap {
	c := &configMap{t: t, dir: t.TempDir()}
	c.publish(files)
	for name := range files {
		if err := os.Symlink(filepath.Join("..data", name), filepath.Join(c.dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func (c *configMap) publish(files map[string]string) {
	c.t.Helper()
	c.n++
	stamp := fmt.Sprintf("..2026_12_06_07_00_%02d.%d", c.n, c.n)
	if err := os.Mkdir(filepath.Join(c.dir, stamp), 0o700); err != nil {
		c.t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(c.dir, stamp, name), []byte(body), 0o600); err != nil {
			c.t.Fatal(err)
		}
	}
	tmp := filepath.Join(c.dir, "..data_tmp")
	if err := os.Symlink(stamp, tmp); err != nil {
		c.t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(c.dir, "..data")); err != nil {
		c.t.Fatal(err)
	}
}

func mustOf(t *testing.T, paths ...string) Fingerprint {
	t.Helper()
	fp, err := Of(paths)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

func TestFingerprintFollowsTheSwap(t *testing.T) {
	v1 := map[string]string{"a.yaml": "namespaces: [{name: a}]\n", "b.yaml": "namespaces: [{name: b}]\n"}
	cm := newConfigMap(t, v1)
	first := mustOf(t, cm.dir)
	if again := mustOf(t, cm.dir); again != first {
		t.Fatalf("fingerprint changed with nothing published")
	}
	for _, tt := range []struct {
		name  string
		files map[string]string
		same  bool
	}{
		{"the same files again", v1, true},
		{"a file's content", map[string]string{"a.yaml": "namespaces: [{name: a2}]\n", "b.yaml": v1["b.yaml"]}, false},
		// The same bytes under other names are another spec: errors name files.
		{"contents swapped between files", map[string]string{"a.yaml": v1["b.yaml"], "b.yaml": v1["a.yaml"]}, false},
		{"back to the first", v1, true},
	} {
		cm.publish(tt.files)
		if got := mustOf(t, cm.dir) == first; got != tt.same {
			t.Errorf("%s: fingerprint the same as the first = %v, want %v", tt.name, got, tt.same)
		}
	}
}

// TestStableReadsAgainAfterASwap swaps the spec while it is being loaded,
// once: the load runs again, and the fingerprint returned is the new one.
func TestStableReadsAgainAfterASwap(t *testing.T) {
	cm := newConfigMap(t, map[string]string{"a.yaml": "namespaces: [{name: a}]\n"})
	v2 := map[string]string{"a.yaml": "namespaces: [{name: a2}]\n"}
	loads := 0
	fp, err := Stable([]string{cm.dir}, func() error {
		loads++
		if loads == 1 {
			cm.publish(v2)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if loads != 2 {
		t.Errorf("loads = %d, want 2: the first saw a swap", loads)
	}
	if want := mustOf(t, cm.dir); fp != want {
		t.Errorf("Stable returned a fingerprint other than the spec's now")
	}

	// A spec that changes on every load is given up on, not loaded forever.
	n := 0
	if _, err := Stable([]string{cm.dir}, func() error {
		n++
		cm.publish(map[string]string{"a.yaml": fmt.Sprintf("namespaces: [{name: x%d}]\n", n)})
		return nil
	}); err == nil || n != attempts {
		t.Errorf("Stable on a spec changing under every load: %d loads, err %v; want %d and an error", n, err, attempts)
	}
}

func TestWatch(t *testing.T) {
	cm := newConfigMap(t, map[string]string{"a.yaml": "namespaces: [{name: a}]\n"})
	clk := clocktest.New(time.Now())
	ctx, cancel := context.WithCancel(context.Background())
	changes := make(chan struct{}, 10)
	done := make(chan struct{})
	go func() {
		Watch(ctx, clk, []string{cm.dir}, 5*time.Second, mustOf(t, cm.dir), func() { changes <- struct{}{} })
		close(done)
	}()
	armed := func() {
		t.Helper()
		select {
		case <-clk.Armed():
		case <-time.After(10 * time.Second):
			t.Fatal("the watch never waited")
		}
	}
	armed()
	// seen moves time to the next poll and, once the watch waits again,
	// counts the changes that poll reported.
	seen := func() int {
		clk.Advance(5 * time.Second)
		armed()
		n := len(changes)
		for range n {
			<-changes
		}
		return n
	}
	for _, step := range []struct {
		name string
		do   func()
		want int
	}{
		{"nothing changed", func() {}, 0},
		{"a swap", func() { cm.publish(map[string]string{"a.yaml": "namespaces: [{name: b}]\n"}) }, 1},
		{"nothing since", func() {}, 0},
		{"the mount gone", func() { os.Remove(filepath.Join(cm.dir, "a.yaml")) }, 1},
		{"still gone: told once", func() {}, 0},
		{"back", func() {
			if err := os.Symlink("..data/a.yaml", filepath.Join(cm.dir, "a.yaml")); err != nil {
				t.Fatal(err)
			}
		}, 1},
	} {
		step.do()
		if got := seen(); got != step.want {
			t.Errorf("%s: %d changes, want %d", step.name, got, step.want)
		}
	}
	cancel()
	clk.Advance(time.Minute)
	<-done
}
