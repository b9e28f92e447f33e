package helm_test

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// releaseKinds are where the chart's objects of a release are, as the API
// server lists them: every kind values-all.yaml makes but the monitoring
// ones, which installCRDs makes the server serve.
var releaseKinds = []string{
	"/apis/apps/v1/namespaces/%s/deployments",
	"/api/v1/namespaces/%s/services",
	"/api/v1/namespaces/%s/configmaps",
	"/api/v1/namespaces/%s/serviceaccounts",
	"/api/v1/namespaces/%s/persistentvolumeclaims",
	"/apis/rbac.authorization.k8s.io/v1/namespaces/%s/roles",
	"/apis/rbac.authorization.k8s.io/v1/namespaces/%s/rolebindings",
	"/apis/networking.k8s.io/v1/namespaces/%s/networkpolicies",
	"/apis/monitoring.coreos.com/v1/namespaces/%s/servicemonitors",
	"/apis/monitoring.coreos.com/v1/namespaces/%s/prometheusrules",
}

// releaseObject is one object of a release as the API server has it.
type releaseObject struct {
	Metadata struct {
		Name              string            `json:"name"`
		Labels            map[string]string `json:"labels"`
		DeletionTimestamp string            `json:"deletionTimestamp"`
		Finalizers        []string          `json:"finalizers"`
	} `json:"metadata"`
	Data map[string]string `json:"data"`
}

// TestChartInstallUpgradeUninstall runs helm install, upgrade and uninstall
// of the chart, as an operator does, against a real API server (one with no
// nodes: the pods are never scheduled, which helm does not wait for): the
// server must report a version the chart's kubeVersion accepts, every
// object is made, the upgrade changes the config and adds a site, and the
// uninstall leaves nothing of the release but what only a controller could
// finish deleting.
func TestChartInstallUpgradeUninstall(t *testing.T) {
	api, kubeconfig := realAPIServer(t, "install the chart")
	installCRDs(t, api)
	ns := fmt.Sprintf("ipsync-install-%d", time.Now().UnixNano()%1e9)
	if r, err := api.apply(fmt.Appendf(nil, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n  labels:\n    pod-security.kubernetes.io/enforce: restricted\n", ns), "", fieldManager, false); err != nil || r.status >= 300 {
		t.Fatalf("create namespace %s: %v %s", ns, err, r.statusMessage())
	}
	// No namespace controller runs to delete it: it stays, empty.
	const rel = "ipsync-install"
	helmRun := func(args ...string) string {
		t.Helper()
		out, err := helm(t, append(args, "--namespace", ns, "--kubeconfig", kubeconfig)...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	objects := func() map[string]releaseObject {
		t.Helper()
		got := map[string]releaseObject{}
		for _, kind := range releaseKinds {
			var list struct {
				Items []releaseObject `json:"items"`
			}
			path := fmt.Sprintf(kind, ns)
			if err := api.getJSON(path+"?"+url.Values{"labelSelector": {"app.kubernetes.io/instance=" + rel}}.Encode(), &list); err != nil {
				t.Fatal(err)
			}
			for _, o := range list.Items {
				got[path[strings.LastIndex(path, "/")+1:]+"/"+o.Metadata.Name] = o
			}
		}
		return got
	}
	deployments := func(objs map[string]releaseObject) []string {
		var out []string
		for id := range objs {
			if name, ok := strings.CutPrefix(id, "deployments/"); ok {
				out = append(out, name)
			}
		}
		slices.Sort(out)
		return out
	}

	helmRun("install", rel, chartDir, "-f", allValues)
	installed := objects()
	if got := deployments(installed); len(got) != 3 {
		t.Errorf("after install, deployments %v; want the two sites' agents and the reconciler", got)
	}
	for _, want := range []string{"servicemonitors/", "prometheusrules/", "networkpolicies/", "roles/", "rolebindings/", "persistentvolumeclaims/"} {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(installed)), func(id string) bool { return strings.HasPrefix(id, want) }) {
			t.Errorf("after install, no %s of the release: %v", strings.TrimSuffix(want, "/"), slices.Sorted(maps.Keys(installed)))
		}
	}

	more := writeValues(t, `sites:
  - name: a11
    namespace: a11
    neutron: {auth: keystone, cloud: a11}
  - name: b22
    namespace: b22
    neutron: {auth: keystone, cloud: b22}
  - name: c33
    namespace: c33
    neutron: {auth: keystone, cloud: c33}
config:
  agent:
    interval: 7m
`)
	helmRun("upgrade", rel, chartDir, "-f", allValues, "-f", more)
	upgraded := objects()
	if got := deployments(upgraded); len(got) != 4 || !slices.ContainsFunc(got, func(n string) bool { return strings.HasSuffix(n, "c33") }) {
		t.Errorf("after upgrade, deployments %v; want c33's agent too", got)
	}
	if !slices.ContainsFunc(slices.Collect(maps.Values(upgraded)), func(o releaseObject) bool {
		return strings.Contains(o.Data["ipsync.yaml"], "interval: 7m")
	}) {
		t.Errorf("after upgrade, no ConfigMap of the release holds the new interval")
	}
	if status := helmRun("status", rel); !strings.Contains(status, "REVISION: 2") || !strings.Contains(status, "STATUS: deployed") {
		t.Errorf("helm status after the upgrade:\n%s", status)
	}

	helmRun("uninstall", rel)
	for id, o := range objects() {
		// The PVC keeps its protection finalizer until a controller
		// (kube-controller-manager's) sees no pod use it; here none runs.
		if o.Metadata.DeletionTimestamp == "" || len(o.Metadata.Finalizers) == 0 {
			t.Errorf("after uninstall, %s is left (finalizers %v)", id, o.Metadata.Finalizers)
		}
	}
	if list := helmRun("list", "-q"); strings.TrimSpace(list) != "" {
		t.Errorf("helm list after uninstall: %q", list)
	}
	// Helm's own record of the release's revisions goes too.
	var history struct {
		Items []releaseObject `json:"items"`
	}
	if err := api.getJSON(fmt.Sprintf("/api/v1/namespaces/%s/secrets?", ns)+url.Values{"labelSelector": {"owner=helm,name=" + rel}}.Encode(), &history); err != nil {
		t.Fatal(err)
	} else if len(history.Items) > 0 {
		t.Errorf("after uninstall, %d of helm's release records are left", len(history.Items))
	}
}
