package kubelease

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// namespaceFile is where a Pod finds its own namespace.
const namespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// Client connects to the cluster: with kubeconfig (a path) when given,
// else as the Pod's ServiceAccount, else by the usual kubeconfig rules
// ($KUBECONFIG, ~/.kube/config). namespace, when empty, becomes the
// Pod's own or the kubeconfig context's. timeout bounds one request; the
// agent's own deadlines are shorter and cancel it first.
func Client(kubeconfig, namespace string, timeout time.Duration) (coordinationv1client.LeasesGetter, string, error) {
	cfg, ns, err := restConfig(kubeconfig)
	if err != nil {
		return nil, "", err
	}
	if namespace == "" {
		namespace = ns
	}
	if namespace == "" {
		return nil, "", errors.New("agent.kubernetes.namespace: set the namespace of the Lease")
	}
	cfg.Timeout = timeout
	cfg.UserAgent = "ipsync"
	// One request per renew interval needs no client-side throttling,
	// whose waits would only eat into the renewal's deadline; and the
	// server's deprecation warnings would go to stderr past the agent's
	// log.
	cfg.QPS = -1
	cfg.WarningHandler = rest.NoWarnings{}
	cs, err := coordinationv1client.NewForConfig(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("kubernetes client: %w", err)
	}
	return cs, namespace, nil
}

func restConfig(kubeconfig string) (*rest.Config, string, error) {
	if kubeconfig != "" {
		return fromKubeconfig(&clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig}, kubeconfig)
	}
	cfg, err := rest.InClusterConfig()
	if err == nil {
		ns, rerr := os.ReadFile(namespaceFile)
		if rerr != nil {
			return nil, "", fmt.Errorf("in a Pod but no namespace: %w", rerr)
		}
		return cfg, strings.TrimSpace(string(ns)), nil
	}
	if !errors.Is(err, rest.ErrNotInCluster) {
		return nil, "", fmt.Errorf("kubernetes in-cluster config: %w", err)
	}
	return fromKubeconfig(clientcmd.NewDefaultClientConfigLoadingRules(), "the default kubeconfig")
}

func fromKubeconfig(rules *clientcmd.ClientConfigLoadingRules, what string) (*rest.Config, string, error) {
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("agent.kubernetes.kubeconfig: %s: %w", what, err)
	}
	// The context's namespace, "default" when it names none, as kubectl.
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, "", fmt.Errorf("agent.kubernetes.kubeconfig: %s: %w", what, err)
	}
	return cfg, ns, nil
}
