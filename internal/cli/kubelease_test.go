package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/ipsync/ipsync/internal/kubelease"
	"github.com/ipsync/ipsync/internal/nautobot/servertest"
	"github.com/ipsync/ipsync/internal/serverstall"
	"github.com/ipsync/ipsync/internal/syncbuf"
)

// kubeEnv is the real kube-apiserver, and what the tests do with it, as
// the environment names them.
type kubeEnv struct {
	admin      *kubernetes.Clientset
	rest       *rest.Config
	helm       string // the helm binary that renders the chart
	stall      string // the command that stops the API server for a while
	chart      string
	kubeconfig string
}

func kubeCluster(t *testing.T) kubeEnv {
	t.Helper()
	e := kubeEnv{kubeconfig: os.Getenv("IPSYNC_KUBECONFIG"), helm: os.Getenv("IPSYNC_HELM"), stall: os.Getenv("IPSYNC_KUBE_STALL")}
	if e.kubeconfig == "" || e.helm == "" || e.stall == "" {
		t.Skip("set IPSYNC_KUBECONFIG (a real kube-apiserver's admin kubeconfig: scripts/kube-up.sh start), IPSYNC_HELM (scripts/kube-up.sh helm) and IPSYNC_KUBE_STALL (\"scripts/kube-up.sh stall\") to run")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", e.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	e.rest = cfg
	if e.admin, err = kubernetes.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	e.chart, err = filepath.Abs("../../deploy/helm/ipsync")
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// chartRBAC creates, in a new namespace, the ServiceAccount, Role and
// RoleBinding the Helm chart renders for site a11 with the Kubernetes
// lease, and returns the namespace and a kubeconfig with a token of that
// ServiceAccount: what an agent in the chart's Pod would have.
func (e kubeEnv) chartRBAC(t *testing.T) (ns, kubeconfig string) {
	t.Helper()
	ctx := context.Background()
	ns = fmt.Sprintf("ipsync-lease-%d", time.Now().UnixNano())
	if _, err := e.admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.admin.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })

	cmd := exec.Command(e.helm, "template", "ipsync", e.chart, "--namespace", ns, "-f", "testdata/kubelease-values.yaml")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, stderr.String())
	}
	var sa string
	for _, doc := range strings.Split(string(out), "\n---") {
		if strings.TrimSpace(strings.TrimPrefix(doc, "---")) == "" {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			continue // kinds client-go does not know (monitoring); not RBAC
		}
		switch o := obj.(type) {
		case *corev1.ServiceAccount:
			sa = o.Name
			_, err = e.admin.CoreV1().ServiceAccounts(ns).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.Role:
			_, err = e.admin.RbacV1().Roles(ns).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			_, err = e.admin.RbacV1().RoleBindings(ns).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding:
			t.Errorf("the chart renders a %T: an agent needs no cluster-wide rights", o)
		}
		if err != nil {
			t.Fatalf("create %s: %v", kindName(obj), err)
		}
	}
	if sa == "" {
		t.Fatalf("the chart rendered no ServiceAccount:\n%s", out)
	}
	expiry := int64(3600)
	tok, err := e.admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["test"] = &clientcmdapi.Cluster{Server: e.rest.Host, CertificateAuthority: e.rest.CAFile, CertificateAuthorityData: e.rest.CAData}
	kc.AuthInfos[sa] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	kc.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: sa, Namespace: ns}
	kc.CurrentContext = "test"
	kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		t.Fatal(err)
	}
	return ns, kubeconfig
}

func kindName(obj runtime.Object) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return fmt.Sprintf("%T", obj)
	}
	return fmt.Sprintf("%T %s", obj, m.GetName())
}

// TestChartRBACIsTheLeastTheLeaseNeeds checks the chart's Role against the
// real API server: its ServiceAccount may read, create and renew the
// site's Lease, and nothing else: not delete it, not another site's
// Lease, not Secrets or ConfigMaps, not another namespace.
func TestChartRBACIsTheLeastTheLeaseNeeds(t *testing.T) {
	e := kubeCluster(t)
	ns, kc := e.chartRBAC(t)
	leases, _, err := kubelease.Client(kc, "", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatal(err)
	}
	sa, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l := kubelease.New(leases, kubelease.Config{Namespace: ns, Owner: "neutron:a11", Holder: "test", TTL: time.Minute})
	for range 2 { // create, then renew
		if ok, err := l.Acquire(ctx); !ok || err != nil {
			t.Fatalf("Acquire with the chart's Role = %v, %v; want the lease", ok, err)
		}
	}
	if err := l.Release(ctx); err != nil {
		t.Fatalf("Release with the chart's Role: %v", err)
	}
	name := kubelease.Name("neutron:a11")
	for _, tt := range []struct {
		what string
		do   func() error
	}{
		{"delete the site's Lease", func() error {
			return sa.CoordinationV1().Leases(ns).Delete(ctx, name, metav1.DeleteOptions{})
		}},
		{"read another site's Lease", func() error {
			_, err := sa.CoordinationV1().Leases(ns).Get(ctx, kubelease.Name("neutron:zz99"), metav1.GetOptions{})
			return err
		}},
		{"list Leases", func() error {
			_, err := sa.CoordinationV1().Leases(ns).List(ctx, metav1.ListOptions{})
			return err
		}},
		{"read Leases of another namespace", func() error {
			_, err := sa.CoordinationV1().Leases("kube-system").Get(ctx, name, metav1.GetOptions{})
			return err
		}},
		{"list Secrets", func() error {
			_, err := sa.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
			return err
		}},
		{"list ConfigMaps", func() error {
			_, err := sa.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
			return err
		}},
	} {
		if err := tt.do(); !apierrors.IsForbidden(err) {
			t.Errorf("%s with the chart's Role: %v, want forbidden", tt.what, err)
		}
	}
}

// startAgentProcess runs the agent of site a11 of cfg as a process of its
// own, which a test may kill with SIGKILL; stop sends it SIGTERM.
func startAgentProcess(t *testing.T, cfg string) *runningAgent {
	t.Helper()
	listen := freeAddr(t)
	// Nothing of this test's environment: not in a Pod, no KUBECONFIG;
	// the config names the kubeconfig.
	return startProcess(t, listen, []string{"agent", "--config", cfg, "--site", "a11", "--listen", listen}, nil)
}

// startProcess runs ipsync with args as a process of its own, with PATH,
// HOME and env its whole environment, and listen the address its args
// or config give it.
func startProcess(t *testing.T, listen string, args, env []string) *runningAgent {
	t.Helper()
	a := &runningAgent{listen: listen, done: make(chan int, 1), logs: &syncbuf.Buffer{}}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append([]string{runAsCLIEnv + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	cmd.Stdout, cmd.Stderr = a.logs, a.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a.kill = func() { _ = cmd.Process.Kill() }
	a.cancel = func() { _ = cmd.Process.Signal(syscall.SIGTERM) }
	go func() {
		err := cmd.Wait()
		code := cmd.ProcessState.ExitCode()
		if err != nil && code == 0 {
			code = -1
		}
		a.done <- code
	}()
	t.Cleanup(func() {
		a.kill()
	})
	return a
}

// TestAgentsOnAKubernetesLease runs two agents of site a11, as two
// processes, on a Kubernetes Lease of a real API server, with the token
// of the chart's ServiceAccount (TTL 9s, renewed every 3s): exactly one
// writes; when the API server stops answering for longer than the TTL,
// the holder stops writing before its lease can expire; when the holder
// is killed, the other takes over within the TTL and a renew interval,
// and writes what changed. Never two writers. The target is the emulator:
// it only records the writes; what is tested is the lease.
func TestAgentsOnAKubernetesLease(t *testing.T) {
	e := kubeCluster(t)
	base := neutronURL(t)
	amqp := os.Getenv("IPSYNC_RABBITMQ_URL")
	if amqp == "" || os.Getenv("IPSYNC_NEUTRON_NOTIFIES") == "" {
		t.Skip("set IPSYNC_RABBITMQ_URL and IPSYNC_NEUTRON_NOTIFIES=1 (a Neutron started with NEUTRON_NOTIFY_URL) to run")
	}
	const ttl, renew = 9 * time.Second, 3 * time.Second
	ns, kc := e.chartRBAC(t)
	srv := servertest.Emulator(t)
	cfg := siteConfig(t, srv, base, fmt.Sprintf(`policy: {max_delete_min: 50}
agent:
  interval: 24h
  coalesce: 100ms
  lease_ttl: %v
  lease_renew: %v
  lease: kubernetes
  kubernetes: {kubeconfig: %q, namespace: %q}
  rabbitmq: {url: %q, queue: %q}
`, ttl, renew, kc, ns, amqp, fmt.Sprintf("ipsync-e2e-kube-%d", time.Now().UnixNano())))
	mustRun(t, "bootstrap", "--config", cfg, "--commit")
	mustRun(t, "apply", "--config", cfg, "--commit")

	proxies := map[string]*slowProxy{"a": newSlowProxy(t, srv), "b": newSlowProxy(t, srv)}
	agents := map[string]*runningAgent{}
	agents["a"] = startAgentProcess(t, viaProxy(t, cfg, srv.URL(), proxies["a"].srv.URL))
	waitUntil(t, "agent a to take the lease", agents, agents["a"].holdsLease)
	agents["b"] = startAgentProcess(t, viaProxy(t, cfg, srv.URL(), proxies["b"].srv.URL))
	a, b := agents["a"], agents["b"]
	waitUntil(t, "agent b to start as a standby", agents, func() bool {
		code, _ := httpGet("http://" + b.listen + "/healthz")
		return code == 200 && !b.holdsLease()
	})

	suffix := time.Now().UnixNano() % 100000
	var networks []string
	t.Cleanup(func() {
		for _, id := range networks {
			if err := deleteNetwork(base, id); err != nil {
				t.Error(err)
			}
		}
	})
	create := func(i, vid int) {
		t.Helper()
		networks = append(networks, routedNetwork(t, base, fmt.Sprintf("kube-%d-%d", suffix, i), vid, vid+1,
			fmt.Sprintf("172.31.%d.0/24", 80+2*i), fmt.Sprintf("172.31.%d.0/24", 81+2*i)))
	}
	written := func(vids ...int) func() bool {
		return func() bool {
			got := vlansOf(t, srv, "neutron:a11")
			for _, v := range vids {
				if !slices.Contains(got, fmt.Sprint(v)) {
					return false
				}
			}
			return true
		}
	}
	create(0, 192)
	waitUntil(t, "network 0's VLANs in Nautobot", agents, written(192, 193))
	if n := len(proxies["b"].recorded()); n != 0 {
		t.Errorf("the standby wrote %d times", n)
	}

	// The API server stops answering for longer than the TTL. The holder's
	// last confirmation was sent before the stall, so it must stop writing
	// TTL - renew after it at the latest, although the target answers.
	stallStart := time.Now()
	serverstall.Run(t, e.stall, ttl+4*time.Second)
	stallEnd := stallStart.Add(ttl + 4*time.Second)
	create(1, 194)
	time.Sleep(time.Until(stallStart.Add(ttl - renew + time.Second)))
	if a.holdsLease() {
		t.Errorf("agent a still holds the lease %v after the API server stopped answering; want it given up after %v", time.Since(stallStart), ttl-renew)
	}
	create(2, 196) // the holder would write this at once if it still wrote
	time.Sleep(time.Until(stallEnd))
	waitUntil(t, "networks 1 and 2's VLANs in Nautobot after the stall", agents, written(194, 195, 196, 197))
	for _, w := range proxies["a"].recorded() {
		if w.start.After(stallStart.Add(ttl-renew+500*time.Millisecond)) && w.start.Before(stallEnd) {
			t.Errorf("agent a wrote at %s, %v into the API server's stall; want no write after %v",
				w.start.Format(time.StampMilli), w.start.Sub(stallStart), ttl-renew)
		}
	}

	// Kill whichever holds the lease now: the other takes over once the
	// lease expired, at most a TTL and a renew interval later.
	var holder, other *runningAgent
	waitUntil(t, "one agent to hold the lease after the stall", agents, func() bool {
		ha, hb := a.holdsLease(), b.holdsLease()
		switch {
		case ha && !hb:
			holder, other = a, b
		case hb && !ha:
			holder, other = b, a
		default:
			return false
		}
		return true
	})
	killed := time.Now()
	holder.kill()
	holder.cancel = nil // nothing to stop: its exit code is SIGKILL's
	create(3, 302)
	waitUntil(t, "the other agent to take the lease over", agents, other.holdsLease)
	took := time.Since(killed)
	t.Logf("the other agent took the lease %v after the holder was killed (TTL %v, renew %v)", took.Round(time.Millisecond), ttl, renew)
	if took > ttl+2*renew {
		t.Errorf("the other agent took the lease %v after the holder was killed; want within the TTL (%v) and a renew interval", took, ttl)
	}
	waitUntil(t, "network 3's VLANs in Nautobot from the new holder", agents, written(302, 303))
	other.stop(t, time.Minute)

	wa, wb := proxies["a"].recorded(), proxies["b"].recorded()
	for _, x := range wa {
		for _, y := range wb {
			if x.start.Before(y.end) && y.start.Before(x.end) {
				t.Errorf("two writers: a wrote %s-%s while b wrote %s-%s", x.start.Format(time.StampMilli),
					x.end.Format(time.StampMilli), y.start.Format(time.StampMilli), y.end.Format(time.StampMilli))
			}
		}
	}
	if t.Failed() {
		t.Logf("--- agent a:\n%s\n--- agent b:\n%s", a.logs.String(), b.logs.String())
	}
}
