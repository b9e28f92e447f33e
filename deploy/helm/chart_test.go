// Package helm_test checks the Helm chart in ipsync/: its metric names
// against the agent's (always), and with IPSYNC_HELM (a helm binary) that
// it lints, renders what it promises and refuses wrong values; with
// IPSYNC_KUBECONFIG too (an admin kubeconfig), that a real API server
// accepts every object it renders, by server-side apply with dryRun.
package helm_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/kubelease"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/spec"
)

const (
	chartDir     = "ipsync"
	release      = "ipsync"
	namespace    = "ipsync-chart-test"
	fieldManager = "ipsync-chart-test"
	allValues    = "testdata/values-all.yaml"
	// The reconciler alone: no sites, its spec from an existing ConfigMap.
	reconcilerValues = "testdata/values-reconciler.yaml"
	gitopsValues     = "../gitops/ipsync/values.yaml"
	// bootstrap.enabled false, over the others.
	noBootstrapValues = "testdata/values-no-bootstrap.yaml"
)

// monitoringAPIs make helm render the ServiceMonitor and PrometheusRule,
// as on a cluster serving prometheus-operator's CRDs.
var monitoringAPIs = []string{
	"--api-versions", "monitoring.coreos.com/v1/ServiceMonitor",
	"--api-versions", "monitoring.coreos.com/v1/PrometheusRule",
}

// chartCase is one set of values the chart is checked with.
type chartCase struct {
	name   string
	values []string // values files, after the chart's own
	args   []string // more helm template arguments
}

var chartCases = []chartCase{
	{name: "defaults"},
	{name: "all", values: []string{allValues}, args: monitoringAPIs},
	{name: "reconciler only", values: []string{reconcilerValues}, args: monitoringAPIs},
	// The GitOps example deploys as the README says: review required.
	{name: "gitops example", values: []string{gitopsValues}},
	{name: "no bootstrap", values: []string{allValues, noBootstrapValues}, args: monitoringAPIs},
}

// metricName is what the dashboard and the alerts may name.
var metricName = regexp.MustCompile(`ipsync_[a-z0-9_]+`)

// agentMetrics are the metric names the agent registers: the Name of every
// prometheus.*Opts literal in internal/agent, with the series a histogram
// (_bucket, _sum, _count) or a summary (_sum, _count) adds.
func agentMetrics(t *testing.T) map[string]bool {
	t.Helper()
	dir := filepath.Join("..", "..", "internal", "agent")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			sel, ok := lit.Type.(*ast.SelectorExpr)
			if !ok || !strings.HasSuffix(sel.Sel.Name, "Opts") {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "prometheus" {
				return true
			}
			for _, elt := range lit.Elts {
				kv, ok := elt.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				if key, ok := kv.Key.(*ast.Ident); !ok || key.Name != "Name" {
					continue
				}
				v, ok := kv.Value.(*ast.BasicLit)
				if !ok || v.Kind != token.STRING {
					continue
				}
				name, err := strconv.Unquote(v.Value)
				if err != nil {
					t.Fatal(err)
				}
				names[name] = true
				switch sel.Sel.Name {
				case "HistogramOpts":
					names[name+"_bucket"], names[name+"_sum"], names[name+"_count"] = true, true, true
				case "SummaryOpts":
					names[name+"_sum"], names[name+"_count"] = true, true
				}
			}
			return true
		})
	}
	if len(names) < 10 {
		t.Fatalf("found %d metric names in %s, want the agent's dozen or more: has the way metrics are declared changed?", len(names), dir)
	}
	return names
}

// dashboardQueries are the PromQL expressions and template variable
// queries of a Grafana dashboard.
func dashboardQueries(t *testing.T, data []byte) []string {
	t.Helper()
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	var out []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				walk(k, e)
			}
		case []any:
			for _, e := range v {
				walk(key, e)
			}
		case string:
			if key == "expr" || key == "query" || key == "definition" {
				out = append(out, v)
			}
		}
	}
	walk("", doc)
	return out
}

// TestMetricNames checks that every ipsync_ metric the dashboard and the
// alerts name is one the agent exports: a renamed metric would leave an
// empty panel and an alert that never fires.
func TestMetricNames(t *testing.T) {
	known := agentMetrics(t)
	dashboard, err := os.ReadFile(filepath.Join(chartDir, "dashboards", "ipsync.json"))
	if err != nil {
		t.Fatal(err)
	}
	rules, err := os.ReadFile(filepath.Join(chartDir, "templates", "prometheusrule.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		text []string
		min  int // distinct names the source must use, so an empty parse fails
	}{
		{name: "dashboard queries", text: dashboardQueries(t, dashboard), min: 10},
		{name: "dashboard text", text: []string{string(dashboard)}, min: 10},
		{name: "alert rules", text: []string{string(rules)}, min: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			used := map[string]bool{}
			for _, s := range tt.text {
				for _, name := range metricName.FindAllString(s, -1) {
					used[name] = true
				}
			}
			for _, name := range slices.Sorted(maps.Keys(used)) {
				if !known[name] {
					t.Errorf("%s names %s, which internal/agent does not export (it exports %s)", tt.name, name, strings.Join(slices.Sorted(maps.Keys(known)), ", "))
				}
			}
			if got := len(used); got < tt.min {
				t.Errorf("%s: got %d distinct metric names, want at least %d", tt.name, got, tt.min)
			}
		})
	}
	// A refused plan writes nothing until someone acts: the dashboard shows
	// it and an alert fires on it.
	t.Run("plan refusals", func(t *testing.T) {
		if !slices.ContainsFunc(dashboardQueries(t, dashboard), func(q string) bool { return strings.Contains(q, "ipsync_plan_refusals") }) {
			t.Error("no dashboard query names ipsync_plan_refusals")
		}
		if !strings.Contains(string(rules), "alert: IpsyncPlanRefused") || !strings.Contains(string(rules), "ipsync_plan_refusals") {
			t.Error("the alert rules have no IpsyncPlanRefused on ipsync_plan_refusals")
		}
	})
	t.Run("dashboard site variable", func(t *testing.T) {
		var d struct {
			Templating struct {
				List []struct {
					Name string `json:"name"`
				} `json:"list"`
			} `json:"templating"`
		}
		if err := json.Unmarshal(dashboard, &d); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range d.Templating.List {
			got = append(got, v.Name)
		}
		if !slices.Contains(got, "site") {
			t.Errorf("dashboard variables = %v, want one named site", got)
		}
	})
}

// helmBinary is IPSYNC_HELM, or skips the test.
func helmBinary(t *testing.T) string {
	t.Helper()
	h := os.Getenv("IPSYNC_HELM")
	if h == "" {
		t.Skip("IPSYNC_HELM is not set: set it to a helm binary (v3.18 or later) to lint and render the chart")
	}
	return h
}

// helm runs the helm binary; its error carries helm's stderr.
func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(helmBinary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Helm keeps nothing of ours: caches and config go to the test's own
	// folders, not the user's.
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_DATA_HOME="+filepath.Join(home, "data"))
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("helm %s: %w\n%s%s", strings.Join(args, " "), err, stderr.String(), stdout.String())
	}
	return stdout.String(), nil
}

// valuesArgs are the -f arguments of values files.
func valuesArgs(files []string) []string {
	var out []string
	for _, f := range files {
		out = append(out, "-f", f)
	}
	return out
}

// render runs helm template with the chart's values, then files, then args.
func render(t *testing.T, files []string, args ...string) (string, error) {
	t.Helper()
	all := append([]string{"template", release, chartDir, "--namespace", namespace}, valuesArgs(files)...)
	return helm(t, append(all, args...)...)
}

// manifest is one rendered document: its text as helm wrote it, and decoded.
type manifest struct {
	text string
	obj  map[string]any
}

func (m manifest) kind() string { return str(m.obj, "kind") }
func (m manifest) name() string { return str(m.obj, "metadata", "name") }
func (m manifest) id() string   { return m.kind() + "/" + m.name() }

var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// split cuts helm's output into its non-empty documents.
func split(t *testing.T, out string) []manifest {
	t.Helper()
	var docs []manifest
	for _, text := range docSeparator.Split(out, -1) {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(text), &obj); err != nil {
			t.Fatalf("rendered document is not YAML: %v\n%s", err, text)
		}
		if obj == nil {
			continue // comments only
		}
		docs = append(docs, manifest{text: text, obj: obj})
	}
	return docs
}

// mustRender renders and splits, failing the test on an error.
func mustRender(t *testing.T, files []string, args ...string) []manifest {
	t.Helper()
	out, err := render(t, files, args...)
	if err != nil {
		t.Fatal(err)
	}
	return split(t, out)
}

// get walks obj by map keys and list indexes ("0").
func get(obj any, path ...string) any {
	for _, p := range path {
		switch o := obj.(type) {
		case map[string]any:
			obj = o[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(o) {
				return nil
			}
			obj = o[i]
		default:
			return nil
		}
	}
	return obj
}

// str is get as text; "" when absent.
func str(obj any, path ...string) string {
	v := get(obj, path...)
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

func list(obj any, path ...string) []any {
	l, _ := get(obj, path...).([]any)
	return l
}

func byKind(docs []manifest, kind string) []manifest {
	var out []manifest
	for _, d := range docs {
		if d.kind() == kind {
			out = append(out, d)
		}
	}
	return out
}

// writeValues writes a values overlay for one test. Not under t.TempDir:
// its name is the test's, which may hold a comma, and helm's -f splits
// its argument at commas.
func writeValues(t *testing.T, text string) string {
	t.Helper()
	f, err := os.CreateTemp("", "ipsync-values-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(f.Name()) })
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// valuesOf are the values helm renders with: the chart's values.yaml,
// then files, merged as helm merges them (maps key by key, a list or a
// scalar replacing the one before, null deleting the key).
func valuesOf(t *testing.T, files []string) map[string]any {
	t.Helper()
	var merge func(dst, src map[string]any)
	merge = func(dst, src map[string]any) {
		for k, v := range src {
			sm, ok := v.(map[string]any)
			dm, dok := dst[k].(map[string]any)
			switch {
			case v == nil:
				delete(dst, k)
			case ok && dok:
				merge(dm, sm)
			default:
				dst[k] = v
			}
		}
	}
	out := map[string]any{}
	for _, f := range append([]string{filepath.Join(chartDir, "values.yaml")}, files...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := yaml.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		merge(out, v)
	}
	return out
}

// sitesOf are the site names the values list.
func sitesOf(t *testing.T, files []string) []string {
	t.Helper()
	var names []string
	for _, s := range list(valuesOf(t, files), "sites") {
		names = append(names, str(s, "name"))
	}
	return names
}

// TestChartLint runs helm lint --strict: the chart's own checks, its
// schema and every template rendered with the values.
func TestChartLint(t *testing.T) {
	helmBinary(t)
	for _, c := range chartCases {
		t.Run(c.name, func(t *testing.T) {
			if out, err := helm(t, append([]string{"lint", "--strict", chartDir, "--namespace", namespace}, valuesArgs(c.values)...)...); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		})
	}
}

// TestValuesHoldNoSecrets walks the values files for keys that would hold
// a secret: tokens and passwords come from Secrets only.
func TestValuesHoldNoSecrets(t *testing.T) {
	secretKey := regexp.MustCompile(`(?i)token|password|secret_?key|credential`)
	allowed := map[string]bool{
		// References to Secrets, not secrets.
		"secrets": true, "imagePullSecrets": true,
	}
	for _, f := range []string{filepath.Join(chartDir, "values.yaml"), allValues, reconcilerValues, gitopsValues} {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if err := yaml.Unmarshal(data, &v); err != nil {
				t.Fatal(err)
			}
			var walk func(path string, v any)
			walk = func(path string, v any) {
				switch v := v.(type) {
				case map[string]any:
					for k, e := range v {
						if secretKey.MatchString(k) && !allowed[k] {
							t.Errorf("%s: key %s.%s looks like a secret; values name Secrets instead (secrets:)", f, path, k)
						}
						walk(path+"."+k, e)
					}
				case []any:
					for i, e := range v {
						walk(fmt.Sprintf("%s[%d]", path, i), e)
					}
				}
			}
			walk("", v)
		})
	}
}

// TestChartRender checks what the chart renders from the defaults and
// from values-all.yaml.
func TestChartRender(t *testing.T) {
	helmBinary(t)
	for _, c := range chartCases {
		t.Run(c.name, func(t *testing.T) {
			docs := mustRender(t, c.values, c.args...)
			checkSecurity(t, docs)
			checkNoSecrets(t, docs)
			checkConfig(t, docs)
			values := valuesOf(t, c.values)
			checkSites(t, docs, sitesOf(t, c.values), get(values, "reconciler", "enabled") == true)
			checkReconciler(t, docs, values)
			checkBootstrap(t, docs, values)
			checkSelection(t, docs)
			checkMetricObjects(t, docs)
			checkRules(t, docs, values)
		})
	}
}

// checkSecurity: every pod runs as today's manifest does, unprivileged
// with a read-only root filesystem; which Pod Security's restricted
// profile asks, and the dry run checks again on a restricted namespace.
func checkSecurity(t *testing.T, docs []manifest) {
	t.Helper()
	for _, d := range byKind(docs, "Deployment") {
		pod := get(d.obj, "spec", "template", "spec")
		for _, want := range []struct {
			path []string
			want string
		}{
			{[]string{"securityContext", "runAsNonRoot"}, "true"},
			{[]string{"securityContext", "runAsUser"}, "65532"},
			{[]string{"securityContext", "runAsGroup"}, "65532"},
			{[]string{"securityContext", "fsGroup"}, "65532"},
			{[]string{"securityContext", "seccompProfile", "type"}, "RuntimeDefault"},
			{[]string{"terminationGracePeriodSeconds"}, "60"},
		} {
			if got := str(pod, want.path...); got != want.want {
				t.Errorf("%s: pod %s = %q, want %q", d.id(), strings.Join(want.path, "."), got, want.want)
			}
		}
		daemons := list(pod, "containers")
		if len(daemons) == 0 {
			t.Errorf("%s: no containers", d.id())
		}
		for _, c := range append(daemons, list(pod, "initContainers")...) {
			name := str(c, "name")
			for _, want := range []struct {
				path []string
				want string
			}{
				{[]string{"securityContext", "allowPrivilegeEscalation"}, "false"},
				{[]string{"securityContext", "readOnlyRootFilesystem"}, "true"},
				{[]string{"securityContext", "runAsNonRoot"}, "true"},
				{[]string{"securityContext", "runAsUser"}, "65532"},
				{[]string{"securityContext", "capabilities", "drop"}, "[ALL]"},
				{[]string{"securityContext", "privileged"}, ""},
				{[]string{"securityContext", "capabilities", "add"}, ""},
			} {
				if got := str(c, want.path...); got != want.want {
					t.Errorf("%s: container %s: %s = %q, want %q", d.id(), name, strings.Join(want.path, "."), got, want.want)
				}
			}
		}
		// Kubernetes refuses probes on init containers.
		for _, c := range daemons {
			for _, probe := range []string{"startupProbe", "livenessProbe", "readinessProbe"} {
				if get(c, probe) == nil {
					t.Errorf("%s: container %s has no %s", d.id(), str(c, "name"), probe)
				}
			}
		}
	}
}

// checkBootstrap: one kind of pod bootstraps the target before its daemon
// starts, the reconciler's when there is one, else every agent's; with
// the config and the token the daemon reads, and nothing else.
func checkBootstrap(t *testing.T, docs []manifest, values map[string]any) {
	t.Helper()
	enabled := get(values, "bootstrap", "enabled") != false
	reconciler := get(values, "reconciler", "enabled") == true
	for _, d := range byKind(docs, "Deployment") {
		pod := get(d.obj, "spec", "template", "spec")
		isReconciler := str(d.obj, "metadata", "labels", "app.kubernetes.io/component") == "reconciler"
		want := enabled && (isReconciler || !reconciler)
		inits := list(pod, "initContainers")
		if !want {
			if len(inits) > 0 {
				t.Errorf("%s: init containers %v, want none", d.id(), inits)
			}
			continue
		}
		if len(inits) != 1 || str(inits[0], "name") != "bootstrap" {
			t.Errorf("%s: init containers %v, want bootstrap alone", d.id(), inits)
			continue
		}
		c := inits[0]
		if got := strs(get(c, "args")); strings.Join(got, " ") != "bootstrap --config /etc/ipsync/ipsync.yaml --commit" {
			t.Errorf("%s: bootstrap args %q", d.id(), got)
		}
		var mounts []string
		for _, m := range list(c, "volumeMounts") {
			mounts = append(mounts, str(m, "name"))
		}
		if want := []string{"config", "sot-token"}; !slices.Equal(mounts, want) {
			t.Errorf("%s: bootstrap mounts %v, want %v", d.id(), mounts, want)
		}
		if str(c, "image") != str(list(pod, "containers")[0], "image") {
			t.Errorf("%s: bootstrap runs %s, the daemon %s", d.id(), str(c, "image"), str(list(pod, "containers")[0], "image"))
		}
	}
}

// tokenLike are shapes of secrets that must never be rendered: a Nautobot
// (v1) token, a NetBox v2 token, a bearer header, a key holding a token or
// password (not a *_file path), a password in a URL.
var tokenLike = []*regexp.Regexp{
	regexp.MustCompile(`\b[0-9a-fA-F]{40}\b`),
	regexp.MustCompile(`\bnbt_[A-Za-z0-9]{8,}`),
	regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._~+/-]{8,}`),
	regexp.MustCompile(`(?i)\b(token|password)["']?\s*:\s*\S`),
	regexp.MustCompile(`[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@`),
}

// checkNoSecrets: the chart references Secrets and never renders one.
func checkNoSecrets(t *testing.T, docs []manifest) {
	t.Helper()
	for _, d := range docs {
		if d.kind() == "Secret" {
			t.Errorf("%s: the chart renders a Secret; it must only reference existing ones", d.id())
		}
		for _, re := range tokenLike {
			if m := re.FindString(d.text); m != "" {
				t.Errorf("%s: rendered text has %q, which looks like a secret (%s)", d.id(), m, re)
			}
		}
	}
}

// checkConfig parses the rendered ipsync.yaml with ipsync's own strict
// config parser: an agent started with it would not refuse it.
func checkConfig(t *testing.T, docs []manifest) {
	t.Helper()
	var found bool
	for _, d := range byKind(docs, "ConfigMap") {
		text := str(d.obj, "data", "ipsync.yaml")
		if text == "" {
			continue
		}
		found = true
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
			t.Fatalf("%s: ipsync.yaml: %v", d.id(), err)
		}
		if _, err := config.Parse([]byte(text)); err != nil {
			t.Errorf("%s: ipsync would refuse the rendered ipsync.yaml:\n%v\n%s", d.id(), err, text)
		}
		for _, key := range []string{"listen", "state_dir"} {
			if got, want := str(doc, "agent", key), map[string]string{"listen": "0.0.0.0:9478", "state_dir": "/var/lib/ipsync"}[key]; got != want {
				t.Errorf("%s: agent.%s = %q, want %q", d.id(), key, got, want)
			}
		}
	}
	if !found {
		t.Errorf("no ConfigMap holds ipsync.yaml")
	}
}

// checkSites: each site has exactly one Deployment running `agent --site
// <name>` with the config, and one Service selecting its pods.
func checkSites(t *testing.T, docs []manifest, sites []string, reconciler bool) {
	t.Helper()
	if len(sites) == 0 && !reconciler {
		t.Fatal("the values list no sites and no reconciler; the test wants at least one of them")
	}
	deployments := map[string][]manifest{}
	for _, d := range byKind(docs, "Deployment") {
		args := list(d.obj, "spec", "template", "spec", "containers", "0", "args")
		if len(args) == 0 || fmt.Sprint(args[0]) != "agent" {
			continue
		}
		var got []string
		for _, a := range args {
			got = append(got, fmt.Sprint(a))
		}
		i := slices.Index(got, "--site")
		if i < 0 || i+1 >= len(got) {
			t.Errorf("%s: agent args %v, want --site <name>", d.id(), got)
			continue
		}
		site := got[i+1]
		if want := []string{"agent", "--config", "/etc/ipsync/ipsync.yaml", "--site", site}; !slices.Equal(got, want) {
			t.Errorf("%s: args = %v, want %v", d.id(), got, want)
		}
		if label := str(d.obj, "spec", "template", "metadata", "labels", "ipsync.io/site"); label != site {
			t.Errorf("%s: pod label ipsync.io/site = %q, want %q", d.id(), label, site)
		}
		deployments[site] = append(deployments[site], d)
	}
	for _, site := range sites {
		if got := len(deployments[site]); got != 1 {
			t.Errorf("site %s: got %d agent Deployments, want 1", site, got)
		}
	}
	if got, want := slices.Sorted(maps.Keys(deployments)), slices.Sorted(slices.Values(sites)); !slices.Equal(got, want) {
		t.Errorf("agent Deployments for sites %v, want %v", got, want)
	}
	services := byKind(docs, "Service")
	for _, s := range services {
		if str(s.obj, "spec", "ports", "0", "port") != "9478" || str(s.obj, "spec", "ports", "0", "name") != "http" {
			t.Errorf("%s: first port = %v, want http 9478", s.id(), get(s.obj, "spec", "ports", "0"))
		}
	}
	for site, ds := range deployments {
		podLabels, _ := get(ds[0].obj, "spec", "template", "metadata", "labels").(map[string]any)
		var selecting []string
		for _, s := range services {
			sel, _ := get(s.obj, "spec", "selector").(map[string]any)
			if len(sel) > 0 && selects(sel, podLabels) {
				selecting = append(selecting, s.name())
			}
		}
		if len(selecting) != 1 {
			t.Errorf("site %s: Services selecting its pods = %v, want exactly one", site, selecting)
		}
	}
}

// selects says whether every label of selector is in labels.
func selects(selector, labels map[string]any) bool {
	for k, v := range selector {
		if fmt.Sprint(labels[k]) != fmt.Sprint(v) {
			return false
		}
	}
	return true
}

// strs is a rendered list as strings.
func strs(v any) []string {
	var out []string
	for _, e := range list(v) {
		out = append(out, fmt.Sprint(e))
	}
	return out
}

// podLabels are the labels of a Deployment's pods.
func podLabels(d manifest) map[string]any {
	labels, _ := get(d.obj, "spec", "template", "metadata", "labels").(map[string]any)
	return labels
}

// renderedConfig is the ipsync.yaml the chart renders, parsed by ipsync.
func renderedConfig(t *testing.T, docs []manifest) (cmName string, cfg *config.Config) {
	t.Helper()
	for _, d := range byKind(docs, "ConfigMap") {
		if text := str(d.obj, "data", "ipsync.yaml"); text != "" {
			cfg, err := config.Parse([]byte(text))
			if err != nil {
				t.Fatalf("%s: %v", d.id(), err)
			}
			return d.name(), cfg
		}
	}
	t.Fatal("no ConfigMap holds ipsync.yaml")
	return "", nil
}

// checkReconciler: with reconciler.enabled, one Deployment runs `ipsync
// reconcile` on the chart's ipsync.yaml and the spec directory. The spec
// is a ConfigMap, the chart's (reconciler.spec, which ipsync loads
// without a diagnostic) or the one reconciler.specConfigMap names,
// mounted as a directory: a subPath mount would never see an edit. The
// pod's checksum leaves the spec out (an edit needs no restart), its token
// is mounted only with the Kubernetes lease, and the Role grants its
// Lease, the one internal/kubelease names, and no ConfigMap. Without
// reconciler.enabled, none of it is rendered.
func checkReconciler(t *testing.T, docs []manifest, values map[string]any) {
	t.Helper()
	var recs []manifest
	for _, d := range byKind(docs, "Deployment") {
		if str(d.obj, "spec", "template", "spec", "containers", "0", "args", "0") == "reconcile" {
			recs = append(recs, d)
		}
	}
	var reconcilerObjects []string
	for _, d := range docs {
		if str(d.obj, "metadata", "labels", "app.kubernetes.io/component") == "reconciler" {
			reconcilerObjects = append(reconcilerObjects, d.id())
		}
	}
	if get(values, "reconciler", "enabled") != true {
		if len(reconcilerObjects) > 0 || len(recs) > 0 {
			t.Errorf("reconciler.enabled is false, yet rendered: %v", reconcilerObjects)
		}
		return
	}
	if len(recs) != 1 {
		t.Fatalf("got %d Deployments running reconcile, want 1", len(recs))
	}
	d := recs[0]
	pod := get(d.obj, "spec", "template", "spec")
	c := get(pod, "containers", "0")
	wantArgs := []string{"reconcile", "--config", "/etc/ipsync/ipsync.yaml", "--spec-dir", "/etc/ipsync/spec"}
	review := get(values, "reconciler", "review", "required") == true
	if review {
		// The reviewed fingerprint in the spec's directory: one swap of
		// the mount changes both.
		wantArgs = append(wantArgs, "--reviewed-file", "/etc/ipsync/spec/reviewed-fingerprint")
	}
	if got := strs(get(c, "args")); !slices.Equal(got, wantArgs) {
		t.Errorf("%s: args = %v, want %v", d.id(), got, wantArgs)
	}
	if got := str(d.obj, "spec", "replicas"); got != "1" {
		t.Errorf("%s: replicas = %s, want 1", d.id(), got)
	}
	if got := str(d.obj, "spec", "strategy", "type"); got != "Recreate" {
		t.Errorf("%s: strategy %q, want Recreate: one writer of the static owner", d.id(), got)
	}
	if got := str(c, "ports", "0", "containerPort"); got != "9478" {
		t.Errorf("%s: containerPort %s, want 9478 (agent.listen)", d.id(), got)
	}

	volumes := map[string]any{}
	for _, v := range list(pod, "volumes") {
		volumes[str(v, "name")] = v
	}
	mounts := map[string]any{}
	for _, m := range list(c, "volumeMounts") {
		mounts[str(m, "mountPath")] = m
		if sub := str(m, "subPath"); sub != "" && str(m, "mountPath") != "/etc/ipsync/ipsync.yaml" {
			t.Errorf("%s: volume %s is mounted at %s with subPath %s: a subPath mount never sees its ConfigMap change", d.id(), str(m, "name"), str(m, "mountPath"), sub)
		}
		if volumes[str(m, "name")] == nil {
			t.Errorf("%s: mount %s of a volume %s the pod lacks", d.id(), str(m, "mountPath"), str(m, "name"))
		}
	}
	for _, v := range []string{"clouds", "rabbitmq-password", "state"} {
		if volumes[v] != nil {
			t.Errorf("%s: has volume %s; the reconciler reads neither Neutron nor RabbitMQ and keeps no state", d.id(), v)
		}
	}
	cmName, cfg := renderedConfig(t, docs)
	if m := mounts["/etc/ipsync/ipsync.yaml"]; str(m, "subPath") != "ipsync.yaml" || str(volumes[str(m, "name")], "configMap", "name") != cmName {
		t.Errorf("%s: /etc/ipsync/ipsync.yaml is %v, want ipsync.yaml of ConfigMap %s", d.id(), m, cmName)
	}
	specMount := mounts["/etc/ipsync/spec"]
	if specMount == nil {
		t.Fatalf("%s: nothing is mounted at /etc/ipsync/spec", d.id())
	}
	if sub := str(specMount, "subPath"); sub != "" {
		t.Errorf("%s: the spec is mounted with subPath %s: it would never see an edit of its ConfigMap", d.id(), sub)
	}
	specCM := str(volumes[str(specMount, "name")], "configMap", "name")
	if specCM == "" {
		t.Fatalf("%s: /etc/ipsync/spec is no ConfigMap: %v", d.id(), volumes[str(specMount, "name")])
	}
	owner := cfg.StaticOwner()
	if external := str(values, "reconciler", "specConfigMap"); external != "" {
		if specCM != external {
			t.Errorf("%s: spec from ConfigMap %s, want reconciler.specConfigMap %s", d.id(), specCM, external)
		}
		for _, cm := range byKind(docs, "ConfigMap") {
			if cm.name() == external {
				t.Errorf("the chart renders %s, which reconciler.specConfigMap names as existing", cm.id())
			}
		}
	} else {
		var data map[string]any
		for _, cm := range byKind(docs, "ConfigMap") {
			if cm.name() == specCM {
				data, _ = get(cm.obj, "data").(map[string]any)
			}
		}
		inline, _ := get(values, "reconciler", "spec").(map[string]any)
		if fp := str(values, "reconciler", "review", "fingerprint"); review && fp != "" {
			if got := str(data, "reviewed-fingerprint"); got != fp {
				t.Errorf("spec ConfigMap %s: reviewed-fingerprint %q, want reconciler.review.fingerprint %q", specCM, got, fp)
			}
			inline = maps.Clone(inline)
			inline["reviewed-fingerprint"] = fp
		}
		if len(data) == 0 || !reflect.DeepEqual(data, inline) {
			t.Errorf("spec ConfigMap %s holds %v, want reconciler.spec %v", specCM, slices.Sorted(maps.Keys(data)), slices.Sorted(maps.Keys(inline)))
		}
		// The files as the pod sees them, loaded as the reconciler loads
		// them: the test's spec is one ipsync accepts.
		dir := t.TempDir()
		for name, text := range data {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprint(text)), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		objs, diags, err := spec.Load([]string{dir}, owner)
		if err != nil || len(diags) > 0 || len(objs) == 0 {
			t.Errorf("the rendered spec of %s: %d objects, %v, %v; want objects and no diagnostic", specCM, len(objs), err, diags)
		}
	}

	annotations, _ := get(d.obj, "spec", "template", "metadata", "annotations").(map[string]any)
	for k := range annotations {
		if strings.HasPrefix(k, "checksum/") && k != "checksum/config" {
			t.Errorf("%s: pod annotation %s: the spec is seen by the running reconciler and must not roll it", d.id(), k)
		}
	}
	kubeLease := str(values, "lease", "type") == "kubernetes"
	if got := str(pod, "automountServiceAccountToken"); got != strconv.FormatBool(kubeLease) {
		t.Errorf("%s: automountServiceAccountToken = %s, want %v (lease.type %s)", d.id(), got, kubeLease, str(values, "lease", "type"))
	}
	if str(c, "securityContext", "readOnlyRootFilesystem") != "true" || str(pod, "securityContext", "runAsNonRoot") != "true" {
		t.Errorf("%s: want the agents' security context", d.id())
	}
	rules := rulesOf(t, docs)
	for _, r := range rules {
		if slices.Contains(r.Resources, "configmaps") {
			t.Errorf("the Role grants %v: the reconciler reads its spec from files, never through the API", r)
		}
	}
	if kubeLease && get(values, "rbac", "create") == true {
		name := kubelease.Name(string(owner))
		var granted bool
		for _, r := range rules {
			if slices.Contains(r.ResourceNames, name) && slices.Contains(r.Verbs, "get") && slices.Contains(r.Verbs, "update") {
				granted = true
			}
		}
		if !granted {
			t.Errorf("the Role grants no get and update of Lease %s, the reconciler's (owner %s): %+v", name, owner, rules)
		}
	}
}

// selectsExpr says whether a LabelSelector (matchLabels, matchExpressions
// with In, NotIn, Exists, DoesNotExist) selects labels.
func selectsExpr(t *testing.T, selector any, labels map[string]any) bool {
	t.Helper()
	ml, _ := get(selector, "matchLabels").(map[string]any)
	if !selects(ml, labels) {
		return false
	}
	for _, e := range list(selector, "matchExpressions") {
		v, has := labels[str(e, "key")]
		in := has && slices.Contains(strs(get(e, "values")), fmt.Sprint(v))
		switch op := str(e, "operator"); op {
		case "In":
			if !in {
				return false
			}
		case "NotIn":
			if in {
				return false
			}
		case "Exists":
			if !has {
				return false
			}
		case "DoesNotExist":
			if has {
				return false
			}
		default:
			t.Fatalf("selector operator %q", op)
		}
	}
	return true
}

// checkSelection: each Deployment's pods (every site's agents, the
// reconciler) are selected by exactly one Service, of the Deployment's
// name; the ServiceMonitor scrapes every Service, the NetworkPolicy
// covers every pod.
func checkSelection(t *testing.T, docs []manifest) {
	t.Helper()
	services := byKind(docs, "Service")
	for _, d := range byKind(docs, "Deployment") {
		var selecting []string
		for _, s := range services {
			sel, _ := get(s.obj, "spec", "selector").(map[string]any)
			if len(sel) > 0 && selects(sel, podLabels(d)) {
				selecting = append(selecting, s.name())
			}
		}
		if !slices.Equal(selecting, []string{d.name()}) {
			t.Errorf("%s: Services selecting its pods = %v, want [%s]", d.id(), selecting, d.name())
		}
		for _, np := range byKind(docs, "NetworkPolicy") {
			if !selectsExpr(t, get(np.obj, "spec", "podSelector"), podLabels(d)) {
				t.Errorf("%s does not cover the pods of %s", np.id(), d.id())
			}
		}
	}
	for _, sm := range byKind(docs, "ServiceMonitor") {
		for _, s := range services {
			labels, _ := get(s.obj, "metadata", "labels").(map[string]any)
			if !selectsExpr(t, get(sm.obj, "spec", "selector"), labels) {
				t.Errorf("%s does not scrape %s", sm.id(), s.id())
			}
		}
	}
}

// promMatcher finds a PromQL matcher site=~"...": its regexp is the
// PromQL (Go-quoted) string, anchored at both ends.
var promMatcher = regexp.MustCompile(`\bsite=~("(?:[^"\\]|\\.)*")`)

// checkRules: every alert has a severity and the summary, description and
// runbook annotations (and runbook_url with runbookURL); the alerts
// over all of the release's series select every site and, with the
// reconciler, its site static:<spec name>, and no other; each site (and
// the reconciler) has its IpsyncAgentAbsent; IpsyncPlanRefused fires on a
// refusal lasting 15 minutes.
func checkRules(t *testing.T, docs []manifest, values map[string]any) {
	t.Helper()
	prs := byKind(docs, "PrometheusRule")
	if len(prs) == 0 {
		return
	}
	var want, wantAbsent []string
	for _, s := range list(values, "sites") {
		want = append(want, str(s, "name"))
		if str(s, "replicas") != "0" {
			wantAbsent = append(wantAbsent, str(s, "name"))
		}
	}
	static := string(resource.StaticOwner(str(values, "config", "spec", "name")))
	if get(values, "reconciler", "enabled") == true {
		want = append(want, static)
		wantAbsent = append(wantAbsent, static)
	}
	absent := map[string]bool{}
	alerts := map[string]bool{}
	for _, g := range list(prs[0].obj, "spec", "groups") {
		for _, r := range list(g, "rules") {
			name, expr := str(r, "alert"), str(r, "expr")
			alerts[name] = true
			if str(r, "labels", "severity") == "" {
				t.Errorf("alert %s has no severity", name)
			}
			keys := []string{"summary", "description", "runbook"}
			if str(values, "metrics", "prometheusRule", "runbookURL") != "" {
				keys = append(keys, "runbook_url")
			}
			for _, k := range keys {
				if str(r, "annotations", k) == "" {
					t.Errorf("alert %s has no %s annotation", name, k)
				}
			}
			if name == "IpsyncAgentAbsent" {
				absent[str(r, "labels", "site")] = true
			}
			if name == "IpsyncPlanRefused" {
				if !strings.Contains(expr, "ipsync_plan_refusals") || !strings.HasSuffix(expr, "> 0") || str(r, "for") != "15m" {
					t.Errorf("IpsyncPlanRefused: expr %q for %q, want ipsync_plan_refusals > 0 for 15m", expr, str(r, "for"))
				}
			}
			if name == "IpsyncAgentAbsent" {
				continue // one site each
			}
			// Reading by changes and the ranges' health are the agents'
			// alone: their selector leaves the reconciler out.
			wantHere := want
			if name == "IpsyncIncrementalMisses" || strings.HasPrefix(name, "IpsyncRange") {
				wantHere = slices.DeleteFunc(slices.Clone(want), func(s string) bool { return s == static })
			}
			m := promMatcher.FindStringSubmatch(expr)
			if m == nil {
				t.Errorf("alert %s: no site=~ matcher in %q", name, expr)
				continue
			}
			text, err := strconv.Unquote(m[1])
			if err != nil {
				t.Fatalf("alert %s: %s: %v", name, m[1], err)
			}
			re := regexp.MustCompile("^(?:" + text + ")$")
			var matched []string
			// Sites of others: a spec name's "." is no regexp wildcard.
			others := []string{"zz99", "static:other", strings.ReplaceAll(static, ".", "x")}
			for _, site := range append(slices.Clone(want), others...) {
				if re.MatchString(site) && (!slices.Contains(matched, site)) {
					matched = append(matched, site)
				}
			}
			if !slices.Equal(matched, wantHere) {
				t.Errorf("alert %s: site=~%s matches %v of the release's series, want %v", name, m[1], matched, wantHere)
			}
		}
	}
	if !alerts["IpsyncPlanRefused"] {
		t.Errorf("no IpsyncPlanRefused alert; alerts: %v", slices.Sorted(maps.Keys(alerts)))
	}
	if got := slices.Sorted(maps.Keys(absent)); !slices.Equal(got, slices.Sorted(slices.Values(wantAbsent))) {
		t.Errorf("IpsyncAgentAbsent for sites %v, want %v", got, slices.Sorted(slices.Values(wantAbsent)))
	}
}

// checkMetricObjects: what the PrometheusRule and the dashboard render
// names only metrics the agent exports.
func checkMetricObjects(t *testing.T, docs []manifest) {
	t.Helper()
	for _, d := range docs {
		var text string
		switch {
		case d.kind() == "PrometheusRule":
			text = d.text
		case d.kind() == "ConfigMap" && str(d.obj, "data", "ipsync.json") != "":
			text = str(d.obj, "data", "ipsync.json")
		default:
			continue
		}
		known := agentMetrics(t)
		for _, name := range metricName.FindAllString(text, -1) {
			if !known[name] {
				t.Errorf("%s names %s, which internal/agent does not export", d.id(), name)
			}
		}
	}
}

// rule is an RBAC rule, for comparing.
type rule struct {
	APIGroups, Resources, ResourceNames, Verbs []string
}

func rulesOf(t *testing.T, docs []manifest) []rule {
	t.Helper()
	roles := byKind(docs, "Role")
	if len(roles) == 0 {
		return nil
	}
	if len(roles) > 1 {
		t.Fatalf("got %d Roles, want one", len(roles))
	}
	var out []rule
	for _, r := range list(roles[0].obj, "rules") {
		out = append(out, rule{strs(get(r, "apiGroups")), strs(get(r, "resources")), strs(get(r, "resourceNames")), strs(get(r, "verbs"))})
	}
	return out
}

// TestChartRBAC: the Role grants only what the pods use, and there are no
// RBAC objects where nothing uses the API.
func TestChartRBAC(t *testing.T) {
	helmBinary(t)
	leaseCreate := rule{[]string{"coordination.k8s.io"}, []string{"leases"}, nil, []string{"create"}}
	// The Leases the Role may read and renew: the owners' names as
	// internal/kubelease makes them, the agents' and the reconciler's.
	leases := func(owners ...string) rule {
		var names []string
		for _, o := range owners {
			names = append(names, kubelease.Name(o))
		}
		return rule{[]string{"coordination.k8s.io"}, []string{"leases"}, names, []string{"get", "update"}}
	}
	const inlineSpec = "reconciler: {enabled: true, spec: {namespaces.yaml: 'namespaces: [{name: a11}]'}}\n"
	tests := []struct {
		name      string
		values    []string
		overlay   string
		want      []rule
		automount map[string]bool // by Deployment name
	}{
		{name: "defaults: lease in the target, no reconciler", automount: map[string]bool{"ipsync-a11": false}},
		{name: "all options", values: []string{allValues}, want: []rule{
			leaseCreate, leases("neutron:a11", "neutron:b22", "static:deploy"),
		}, automount: map[string]bool{"ipsync-a11": true, "ipsync-b22": true, "ipsync-reconciler": true}},
		{name: "kubernetes lease only", overlay: "lease: {type: kubernetes}\n", want: []rule{
			leaseCreate, leases("neutron:a11"),
		}, automount: map[string]bool{"ipsync-a11": true}},
		// The reconciler reads its spec from files: with the lease in the
		// target it needs nothing of the API.
		{name: "reconciler, lease in the target", overlay: inlineSpec,
			automount: map[string]bool{"ipsync-a11": false, "ipsync-reconciler": false}},
		{name: "reconciler, kubernetes lease", overlay: inlineSpec + "lease: {type: kubernetes}\n", want: []rule{
			leaseCreate, leases("neutron:a11", "static:deploy"),
		}, automount: map[string]bool{"ipsync-a11": true, "ipsync-reconciler": true}},
		{name: "reconciler only, existing spec ConfigMap, lease in the target", values: []string{reconcilerValues},
			automount: map[string]bool{"ipsync-reconciler": false}},
		{name: "reconciler only, existing spec ConfigMap, kubernetes lease", values: []string{reconcilerValues},
			overlay: "lease: {type: kubernetes}\n", want: []rule{
				leaseCreate, leases("static:Deploy_1.v2"),
			}, automount: map[string]bool{"ipsync-reconciler": true}},
		{name: "rbac.create false", values: []string{allValues}, overlay: "rbac: {create: false}\n",
			automount: map[string]bool{"ipsync-a11": true, "ipsync-b22": true, "ipsync-reconciler": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := tt.values
			if tt.overlay != "" {
				files = append(slices.Clone(files), writeValues(t, tt.overlay))
			}
			docs := mustRender(t, files)
			if got := rulesOf(t, docs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Role rules:\n got %+v\nwant %+v", got, tt.want)
			}
			roles, bindings := len(byKind(docs, "Role")), len(byKind(docs, "RoleBinding"))
			if want := min(len(tt.want), 1); roles != want || bindings != want {
				t.Errorf("got %d Roles and %d RoleBindings, want %d of each", roles, bindings, want)
			}
			if n := len(byKind(docs, "ClusterRole")) + len(byKind(docs, "ClusterRoleBinding")); n != 0 {
				t.Errorf("got %d cluster-wide RBAC objects, want none", n)
			}
			for _, d := range byKind(docs, "Deployment") {
				want, ok := tt.automount[d.name()]
				if !ok {
					t.Errorf("unexpected Deployment %s", d.name())
					continue
				}
				if got := str(d.obj, "spec", "template", "spec", "automountServiceAccountToken"); got != strconv.FormatBool(want) {
					t.Errorf("%s: automountServiceAccountToken = %s, want %v", d.id(), got, want)
				}
			}
		})
	}
}

// checksums are the pod template's checksum annotations of each
// Deployment: checksum/config, and any other checksum/ one.
func checksums(t *testing.T, docs []manifest) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range byKind(docs, "Deployment") {
		annotations, _ := get(d.obj, "spec", "template", "metadata", "annotations").(map[string]any)
		if sum := str(annotations, "checksum/config"); len(sum) != 64 {
			t.Errorf("%s: checksum/config = %q, want a sha256", d.id(), sum)
		}
		var sums []string
		for _, k := range slices.Sorted(maps.Keys(annotations)) {
			if strings.HasPrefix(k, "checksum/") {
				sums = append(sums, k+"="+str(annotations, k))
			}
		}
		out[d.name()] = strings.Join(sums, " ")
	}
	return out
}

// TestChartChecksum: a config change rolls exactly the Deployments that
// read it; a site's agents read the shared config and their own site, the
// reconciler the shared config alone, and never the spec on a restart.
func TestChartChecksum(t *testing.T) {
	helmBinary(t)
	base := checksums(t, mustRender(t, []string{allValues}))
	// The sites of values-all.yaml with b22's namespace changed: a values
	// file's list replaces the list before it.
	all, err := os.ReadFile(allValues)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Sites []map[string]any `yaml:"sites"`
	}
	if err := yaml.Unmarshal(all, &v); err != nil {
		t.Fatal(err)
	}
	for _, s := range v.Sites {
		if s["name"] == "b22" {
			s["namespace"] = "b22-renamed"
		}
	}
	sites, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		overlay     string
		changed     []string // Deployments whose checksum changes
		specChanged bool     // the reconciler's spec ConfigMap changes
	}{
		{name: "same values", changed: nil},
		{name: "agent interval", overlay: "config: {agent: {interval: 7m}}\n", changed: []string{"ipsync-a11", "ipsync-b22", "ipsync-reconciler"}},
		{name: "token secret name", overlay: "secrets: {sot: {name: other-token, key: token}}\n", changed: nil},
		{name: "target URL", overlay: "config: {nautobot: {url: https://nautobot2.example.net}}\n", changed: []string{"ipsync-a11", "ipsync-b22", "ipsync-reconciler"}},
		{name: "the spec's name", overlay: "config: {spec: {name: other}}\n", changed: []string{"ipsync-a11", "ipsync-b22", "ipsync-reconciler"}},
		// The reconciler reads no site's section.
		{name: "one site's namespace", overlay: string(sites), changed: []string{"ipsync-b22"}},
		// The reconciler sees its spec's files change and plans again: an
		// edit of the inline spec changes the ConfigMap and rolls nothing.
		{name: "the inline spec", overlay: "reconciler: {spec: {namespaces.yaml: 'namespaces: [{name: b22}]'}}\n", changed: nil, specChanged: true},
		{name: "the reconciler's resources", overlay: "reconciler: {resources: {limits: {memory: 1Gi}}}\n", changed: nil},
	}
	specData := func(docs []manifest) string {
		for _, d := range byKind(docs, "ConfigMap") {
			if d.name() == "ipsync-spec" {
				return fmt.Sprint(get(d.obj, "data"))
			}
		}
		t.Fatal("no ConfigMap ipsync-spec: values-all.yaml has an inline reconciler spec")
		return ""
	}
	baseSpec := specData(mustRender(t, []string{allValues}))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := []string{allValues}
			if tt.overlay != "" {
				files = append(files, writeValues(t, tt.overlay))
			}
			docs := mustRender(t, files)
			got := checksums(t, docs)
			var changed []string
			for _, name := range slices.Sorted(maps.Keys(base)) {
				if got[name] != base[name] {
					changed = append(changed, name)
				}
			}
			if !slices.Equal(changed, tt.changed) {
				t.Errorf("checksum changed on %v, want %v", changed, tt.changed)
			}
			if spec := specData(docs); (spec != baseSpec) != tt.specChanged {
				t.Errorf("spec ConfigMap changed: %v, want %v", spec != baseSpec, tt.specChanged)
			}
		})
	}
}

// TestChartMonitoringNeedsCRDs: the ServiceMonitor and PrometheusRule are
// rendered only where the cluster serves them, even when enabled.
func TestChartMonitoringNeedsCRDs(t *testing.T) {
	helmBinary(t)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{name: "without the APIs", want: nil},
		{name: "with the APIs", args: monitoringAPIs, want: []string{"PrometheusRule", "ServiceMonitor"}},
		{name: "with the ServiceMonitor API only", args: monitoringAPIs[:2], want: []string{"ServiceMonitor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range mustRender(t, []string{allValues}, tt.args...) {
				if k := d.kind(); k == "ServiceMonitor" || k == "PrometheusRule" {
					got = append(got, k)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("monitoring objects = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestChartTarget: the token file goes to the section of config.target.
func TestChartTarget(t *testing.T) {
	helmBinary(t)
	tests := []struct {
		name, overlay, section, other string
	}{
		{name: "nautobot", section: "nautobot", other: "netbox"},
		{name: "netbox", overlay: "config: {target: netbox, netbox: {url: https://netbox.example.com}, nautobot: null, allowed_hosts: [netbox.example.com]}\n",
			section: "netbox", other: "nautobot"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var files []string
			if tt.overlay != "" {
				files = append(files, writeValues(t, tt.overlay))
			}
			docs := mustRender(t, files)
			checkConfig(t, docs)
			var cfg map[string]any
			for _, d := range byKind(docs, "ConfigMap") {
				if text := str(d.obj, "data", "ipsync.yaml"); text != "" {
					if err := yaml.Unmarshal([]byte(text), &cfg); err != nil {
						t.Fatal(err)
					}
				}
			}
			if got, want := str(cfg, tt.section, "token_file"), "/var/run/secrets/ipsync/sot/token"; got != want {
				t.Errorf("%s.token_file = %q, want %q", tt.section, got, want)
			}
			if got := str(cfg, tt.other, "token_file"); got != "" {
				t.Errorf("%s.token_file = %q, want none", tt.other, got)
			}
			if got := str(cfg, "target"); got != tt.section {
				t.Errorf("target = %q, want %q", got, tt.section)
			}
		})
	}
}

// TestChartRefuses: wrong values fail helm template with a message that
// names what is wrong, from the schema or the templates.
func TestChartRefuses(t *testing.T) {
	helmBinary(t)
	tests := []struct {
		name, overlay, want string
	}{
		{"a token in the config", "config: {nautobot: {token: 0123456789abcdef0123456789abcdef01234567}}\n",
			"at '/config/nautobot/token': value must be '(never a value: the Nautobot token comes from the Secret named in secrets.sot)'"},
		{"a RabbitMQ password in the config", "config: {agent: {rabbitmq: {password: guest}}}\n",
			"at '/config/agent/rabbitmq/password': value must be '(never a value"},
		{"a token in env", "env: [{name: IPSYNC_NAUTOBOT_TOKEN, value: abc}]\n",
			"at '/env/0/value': value must be '(never a value: a variable named like a token"},
		{"a token file path", "config: {nautobot: {token_file: /tmp/t}}\n",
			"at '/config/nautobot/token_file': value must be '(not a value: the chart mounts the Secret named in secrets.sot"},
		{"the listen address", "config: {agent: {listen: 127.0.0.1:9000}}\n",
			"at '/config/agent/listen': value must be '(not a value: the chart sets 0.0.0.0:9478"},
		{"the lease in the config", "config: {agent: {lease: kubernetes}}\n",
			"at '/config/agent/lease': value must be '(not a value: set lease.type"},
		{"sites in the config", "config: {sites: [{name: a11}]}\n",
			"at '/config/sites': value must be '(not a value: list the sites in the top-level sites:"},
		{"an unknown config key", "config: {nautobot: {tokn: x}}\n",
			"at '/config/nautobot': additional properties 'tokn' not allowed"},
		{"an unknown top-level key", "replicaCount: 2\n",
			"additional properties 'replicaCount' not allowed"},
		{"a duration without a unit", "config: {agent: {interval: 600}}\n",
			"at '/config/agent/interval': got number, want string"},
		{"a lease type", "lease: {type: k8s}\n",
			"at '/lease/type': value must be one of 'sot', 'kubernetes'"},
		{"a site name that is no DNS label", "sites: [{name: A_11, neutron: {auth: keystone, cloud: a11}}]\n",
			"at '/sites/0/name': 'A_11' does not match pattern"},
		{"a site without neutron", "sites: [{name: a11}]\n",
			"at '/sites/0': missing property 'neutron'"},
		{"a site twice", "sites: [{name: a11, neutron: {auth: keystone, cloud: a}}, {name: a11, neutron: {auth: keystone, cloud: b}}]\n",
			`sites[1]: site "a11" is listed twice`},
		{"noauth without endpoint", "sites: [{name: a11, neutron: {auth: noauth}}]\n",
			"sites[0] (a11): neutron.endpoint is required with auth noauth"},
		{"a PVC with two replicas", "sites: [{name: a11, neutron: {auth: keystone, cloud: a11}, replicas: 2, persistence: {enabled: true}}]\n",
			"sites[0] (a11): persistence.enabled with replicas 2: a Deployment's pods share its one PersistentVolumeClaim, a ReadWriteOnce volume mounts on one node only"},
		{"a name too long", "sites: [{name: " + strings.Repeat("s", 50) + ", neutron: {auth: keystone, cloud: a11}}]\nfullnameOverride: " + strings.Repeat("r", 20) + "\n",
			"more than the 63 of a Service name"},
		{"netbox without its URL", "config: {target: netbox}\n",
			"config.netbox.url is empty: config.target is netbox"},
		{"the reconciler without the target's URL", "config: {target: netbox}\nsites: []\nreconciler: {enabled: true, specConfigMap: my-spec}\n",
			"config.netbox.url is empty: config.target is netbox"},
		{"the reconciler enabled without any spec", "reconciler: {enabled: true}\n",
			"reconciler.enabled: give the spec files in reconciler.spec (file name: YAML text), or name an existing ConfigMap holding them in reconciler.specConfigMap"},
		{"the reconciler with two specs", "reconciler: {enabled: true, spec: {a.yaml: 'namespaces: []'}, specConfigMap: my-spec}\n",
			"reconciler.spec and reconciler.specConfigMap (my-spec) are both given"},
		{"a spec file the reconciler would not read", "reconciler: {enabled: true, spec: {README.md: text}}\n",
			"'README.md' does not match pattern"},
		{"a spec ConfigMap name that is no name", "reconciler: {enabled: true, specConfigMap: My_Spec}\n",
			"at '/reconciler/specConfigMap': 'anyOf' failed"},
		{"spec paths in the config", "config: {spec: {paths: [/srv/spec]}}\n",
			"at '/config/spec/paths': value must be '(not a value: the agents read no spec; the reconciler"},
		{"an unknown reconciler key", "reconciler: {enabled: true, specConfigMap: my-spec, replicas: 2}\n",
			"at '/reconciler': additional properties 'replicas' not allowed"},
		{"a site named like the reconciler", "sites: [{name: reconciler, neutron: {auth: keystone, cloud: r}}]\nreconciler: {enabled: true, specConfigMap: my-spec}\n",
			"sites[0]: a site named reconciler would share its Deployment and Service name with the reconciler's"},
		{"a reconciler name too long", "sites: []\nreconciler: {enabled: true, specConfigMap: my-spec}\nfullnameOverride: " + strings.Repeat("r", 53) + "\n",
			"more than the 63 of a Service name"},
		{"an image digest that is no sha256", "image: {digest: latest}\n",
			"at '/image/digest': 'latest' does not match pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := render(t, []string{writeValues(t, tt.overlay)})
			if err == nil {
				t.Fatalf("helm template with %q succeeded, want an error containing %q; rendered:\n%.2000s", tt.overlay, tt.want, out)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("helm template with %q:\n got %v\nwant an error containing %q", tt.overlay, err, tt.want)
			}
		})
	}
}

// TestChartDryRun applies every object the chart renders to a real API
// server, with server-side apply and dryRun=All: the server validates each
// against its schema (CRDs included), defaults it and runs admission, Pod
// Security's restricted profile included, without storing it.
func TestChartDryRun(t *testing.T) {
	api, _ := realAPIServer(t, "dry-run the chart's objects")
	// The namespace exists for real: a namespaced object's dry run needs
	// it. Restricted Pod Security, enforced and warned: a Deployment whose
	// pods would be refused draws a warning, which fails the test.
	ns := fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata:
  name: %s
  labels:
    pod-security.kubernetes.io/enforce: restricted
    pod-security.kubernetes.io/warn: restricted
`, namespace)
	if r, err := api.apply([]byte(ns), "", fieldManager, false); err != nil {
		t.Fatal(err)
	} else if r.status >= 300 {
		t.Fatalf("create namespace %s: %s", namespace, r.statusMessage())
	}
	installCRDs(t, api)

	for _, c := range chartCases {
		t.Run(c.name, func(t *testing.T) {
			docs := mustRender(t, c.values, c.args...)
			for _, d := range docs {
				t.Run(d.id(), func(t *testing.T) {
					r, err := api.apply([]byte(d.text), namespace, fieldManager, true)
					if err != nil {
						t.Fatalf("%s: %v", d.id(), err)
					}
					if r.status >= 300 {
						t.Fatalf("%s: the API server refused it: %s", d.id(), r.statusMessage())
					}
					for _, w := range r.warnings {
						t.Errorf("%s: the API server warned: %s", d.id(), w)
					}
				})
			}
		})
	}
}

// realAPIServer is the API server IPSYNC_KUBECONFIG names, and that
// kubeconfig's path; without it (or IPSYNC_HELM) the test is skipped,
// saying it needs one to do what.
func realAPIServer(t *testing.T, what string) (*apiServer, string) {
	t.Helper()
	helmBinary(t)
	kubeconfig := os.Getenv("IPSYNC_KUBECONFIG")
	if kubeconfig == "" {
		t.Skip("IPSYNC_KUBECONFIG is not set: set it to an admin kubeconfig of a Kubernetes API server (1.27 or later) to " + what)
	}
	api, err := newAPIServer(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return api, kubeconfig
}

// installCRDs creates prometheus-operator's ServiceMonitor and
// PrometheusRule CRDs for real (a dry run of their objects needs them),
// idempotently, and waits until the server serves them. The files are
// prometheus-operator v0.85.0's example/prometheus-operator-crd/, from
// `go mod download -json github.com/prometheus-operator/prometheus-operator@v0.85.0`.
func installCRDs(t *testing.T, api *apiServer) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "crds", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in testdata/crds: %v", err)
	}
	var kinds []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd struct {
			Metadata struct {
				Name string `yaml:"name"`
			} `yaml:"metadata"`
			Spec struct {
				Group string `yaml:"group"`
				Names struct {
					Kind string `yaml:"kind"`
				} `yaml:"names"`
			} `yaml:"spec"`
		}
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		r, err := api.apply(data, "", fieldManager, false)
		if err != nil {
			t.Fatal(err)
		}
		if r.status >= 300 {
			t.Fatalf("create CRD %s: %s", crd.Metadata.Name, r.statusMessage())
		}
		kinds = append(kinds, crd.Spec.Names.Kind)
	}
	for _, kind := range kinds {
		err := waitFor(60*time.Second, func() (bool, error) {
			_, err := api.resource("monitoring.coreos.com/v1", kind)
			return err == nil, err
		})
		if err != nil {
			t.Fatalf("CRD of %s not served: %v", kind, err)
		}
	}
}
