package cli

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2"

	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/syncbuf"
)

// TestKubernetesClientLogsInTheDaemonsLog: what client-go says through
// klog lands in the daemon's own log, JSON with the site named, once a
// daemon takes a Kubernetes Lease.
func TestKubernetesClientLogsInTheDaemonsLog(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: ipsync}}]
current-context: x
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &config.Config{Agent: config.Agent{Lease: config.LeaseKubernetes, LeaseTTL: 15 * time.Second, LeaseRenew: 5 * time.Second}}
	cfg.Agent.Kubernetes.Kubeconfig = kubeconfig
	var logs syncbuf.Buffer
	t.Cleanup(klog.ClearLogger)
	if _, err := newLease(nil, cfg, "neutron:a11", slog.New(slog.NewJSONHandler(&logs, nil)).With("site", "a11")); err != nil {
		t.Fatal(err)
	}
	klog.ErrorS(nil, "from client-go", "resource", "leases")
	klog.Flush()
	var rec map[string]any
	line, _, _ := strings.Cut(logs.String(), "\n")
	if err := json.Unmarshal([]byte(line), &rec); err != nil || rec["msg"] != "from client-go" || rec["site"] != "a11" || rec["component"] != "kubernetes-client" || rec["level"] != "ERROR" {
		t.Errorf("klog's line in the daemon's log: %q (%v); want JSON at ERROR naming the site and the component", line, err)
	}
}
