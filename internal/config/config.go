// Package config reads ipsync.yaml: where the spec lives, which Nautobot or
// NetBox to write to, the sites whose Neutron is read, and the ownership policy.
// Secrets are never in it: tokens and passwords come from env or files.
package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/ipsync/ipsync/internal/didyoumean"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/rangehealth"
	"github.com/ipsync/ipsync/internal/resource"
)

// Config is the whole file. Each component gets only its own section.
type Config struct {
	// Target is the server written to: "nautobot" or "netbox". A file
	// without it writes to the one whose section it has.
	Target       string   `yaml:"target"`
	Spec         Spec     `yaml:"spec"`
	Marker       Marker   `yaml:"marker"`
	Policy       Policy   `yaml:"policy"`
	Nautobot     Nautobot `yaml:"nautobot"`
	NetBox       NetBox   `yaml:"netbox"`
	AllowedHosts []string `yaml:"allowed_hosts"`
	Sites        []Site   `yaml:"sites"`
	Agent        Agent    `yaml:"agent"`
}

// Spec says where the static YAML spec is and under which name it owns
// objects (owner "static:<name>").
type Spec struct {
	Name  string   `yaml:"name"`
	Paths []string `yaml:"paths"`
}

// Marker is how ipsync marks what it owns in the target.
type Marker struct {
	Tag         string `yaml:"tag"`
	CustomField string `yaml:"custom_field"`
	VNIField    string `yaml:"vni_field"`
}

// Policy is the ownership policy of plans.
type Policy struct {
	Mode             string  `yaml:"mode"`
	MaxDeletePercent float64 `yaml:"max_delete_percent"`
	MaxDeleteMin     int     `yaml:"max_delete_min"`
	MaxDeleteCount   int     `yaml:"max_delete_count"`
}

// Nautobot is the target when Target is "nautobot". The token comes from TokenEnv (default
// IPSYNC_NAUTOBOT_TOKEN) or TokenFile.
type Nautobot struct {
	URL         string        `yaml:"url"`
	TokenFile   string        `yaml:"token_file"`
	APIVersion  string        `yaml:"api_version"` // empty: the server's own
	PageSize    int           `yaml:"page_size"`
	BatchSize   int           `yaml:"batch_size"`
	Concurrency int           `yaml:"concurrency"`
	Timeout     time.Duration `yaml:"timeout"`
	// MaxWait caps one request, its retries included.
	MaxWait            time.Duration `yaml:"max_wait"`
	InsecureSkipVerify bool          `yaml:"insecure_skip_verify"`
}

// Site is one OpenStack site whose Neutron owns the dynamic objects.
type Site struct {
	Name                string            `yaml:"name"`
	Namespace           string            `yaml:"namespace"`
	NamespacePerNetwork bool              `yaml:"namespace_per_network"`
	Location            string            `yaml:"location"`
	Neutron             Neutron           `yaml:"neutron"`
	PhysnetGroups       map[string]string `yaml:"physnet_groups"`
	Tenants             map[string]string `yaml:"tenants"`
	Status              string            `yaml:"status"`
	// SegmentRanges: write the spec's segment ranges of this site to its
	// Neutron.
	SegmentRanges bool `yaml:"segment_ranges"`
	// SubnetPools: write the spec's subnet pools of this site, and their
	// address scopes, to its Neutron.
	SubnetPools bool `yaml:"subnet_pools"`
	// Agent is this site's agent section: the file's agent section with
	// what the site writes under its own agent key laid over it, so that
	// several sites' agents can run on one host from one file (each its
	// own listen address and RabbitMQ). Nil when the site has none; read
	// it through Config.AgentFor.
	Agent *Agent `yaml:"agent"`
}

// Neutron says how to reach a site's Neutron. Auth "noauth" talks to Endpoint
// directly (tests); "keystone" uses the clouds.yaml entry Cloud or OS_* env.
type Neutron struct {
	Endpoint    string `yaml:"endpoint"`
	Auth        string `yaml:"auth"`
	Cloud       string `yaml:"cloud"`
	Region      string `yaml:"region"`
	PageSize    int    `yaml:"page_size"`
	Concurrency int    `yaml:"concurrency"`
}

// Agent configures `ipsync agent`.
type Agent struct {
	Listen   string        `yaml:"listen"`
	Interval time.Duration `yaml:"interval"`
	// Sweep is how often a sync reads both sides whole instead of what
	// changed since the last one.
	Sweep    time.Duration `yaml:"sweep"`
	Jitter   float64       `yaml:"jitter"`
	RabbitMQ RabbitMQ      `yaml:"rabbitmq"`
	LeaseTTL time.Duration `yaml:"lease_ttl"`
	// LeaseRenew is how often the lease is renewed, and how long one
	// renewal may take; writes stop LeaseTTL-LeaseRenew after the last.
	LeaseRenew time.Duration `yaml:"lease_renew"`
	Coalesce   time.Duration `yaml:"coalesce"`
	// StateDir keeps each site's state across restarts: the target's
	// followed view and its place in the change log, so that a restart
	// follows on instead of reading the target whole. Empty keeps it in
	// memory only.
	StateDir string `yaml:"state_dir"`
	// Lease is where the one-writer-per-owner lease is kept: "sot" (a
	// tag in the target, the default; agents of one owner may run in
	// different clusters) or "kubernetes" (a coordination.k8s.io Lease).
	Lease      string     `yaml:"lease"`
	Kubernetes Kubernetes `yaml:"kubernetes"`
	// RangeThreshold is the used ratio (0-1] from which the status page
	// and `ipsync drift` show a segment range or VLAN group as filling up.
	RangeThreshold float64 `yaml:"range_threshold"`
}

// Kubernetes is the cluster that keeps the Lease with agent.lease
// kubernetes.
type Kubernetes struct {
	// Namespace of the Lease; default the Pod's own, or the kubeconfig
	// context's.
	Namespace string `yaml:"namespace"`
	// Kubeconfig is a kubeconfig file; default the Pod's ServiceAccount,
	// else $KUBECONFIG or ~/.kube/config.
	Kubeconfig string `yaml:"kubeconfig"`
}

// Lease kinds.
const (
	LeaseSoT        = "sot"
	LeaseKubernetes = "kubernetes"
)

// RabbitMQ is where a site's Neutron publishes notifications. The URL may
// carry no password; it comes from IPSYNC_RABBITMQ_PASSWORD or PasswordFile.
type RabbitMQ struct {
	URL          string `yaml:"url"`
	PasswordFile string `yaml:"password_file"`
	Exchange     string `yaml:"exchange"`
	Topic        string `yaml:"topic"`
	Queue        string `yaml:"queue"`
}

// Default is the configuration every file starts from.
func Default() Config {
	return Config{
		Target:   TargetNautobot,
		Spec:     Spec{Name: "default"},
		Marker:   Marker{Tag: "managed-by-ipsync", CustomField: "ipsync_owner", VNIField: "vni"},
		Policy:   Policy{Mode: string(plan.ModeSync), MaxDeletePercent: 10, MaxDeleteMin: 5},
		Nautobot: Nautobot{PageSize: 1000, BatchSize: 250, Concurrency: 4, Timeout: 60 * time.Second, MaxWait: 3 * time.Minute},
		NetBox:   defaultNetBox(),
		Agent: Agent{Listen: "127.0.0.1:9478", Interval: 10 * time.Minute, Sweep: 24 * time.Hour, Jitter: 0.1, LeaseTTL: 2 * time.Minute,
			LeaseRenew: 30 * time.Second, Lease: LeaseSoT, RangeThreshold: rangehealth.DefaultThreshold,
			Coalesce: 200 * time.Millisecond,
			RabbitMQ: RabbitMQ{Exchange: "neutron", Topic: "notifications.info"}},
	}
}

// Error is every problem of one config file.
type Error struct {
	File     string
	Problems []Problem
}

// Error lists the problems one per line as file:line:col: field: message,
// the form editors and CI logs turn into links.
func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		at := e.File
		if p.Line > 0 {
			at = fmt.Sprintf("%s:%d:%d", e.File, p.Line, p.Col)
		}
		lines[i] = at + ": " + p.String()
	}
	return strings.Join(lines, "\n")
}

// Load reads, defaults and validates the file at path. Relative paths in
// it (spec.paths, token_file, password_file, state_dir) are relative to
// the file's folder, wherever ipsync runs from.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	c, problems := parse(data)
	if len(problems) > 0 {
		return nil, &Error{File: path, Problems: problems}
	}
	c.resolve(filepath.Dir(path))
	return c, nil
}

// Parse decodes a config document strictly: unknown fields are errors.
func Parse(data []byte) (*Config, error) {
	c, problems := parse(data)
	if len(problems) > 0 {
		return nil, &Error{File: "config", Problems: problems}
	}
	return c, nil
}

func parse(data []byte) (*Config, []Problem) {
	c := Default()
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		// An empty document (io.EOF) means all defaults.
		if errors.Is(err, io.EOF) {
			return &c, nil
		}
		if le, ok := errors.AsType[*yaml.LoadError](err); ok {
			return nil, []Problem{{Line: max(le.Mark.Line, 1), Col: max(le.Mark.Column, 1), Message: "YAML syntax error: " + le.Message}}
		}
		return nil, []Problem{{Line: 1, Col: 1, Message: "YAML syntax error: " + err.Error()}}
	}
	if len(doc.Content) == 0 {
		return &c, nil
	}
	ck := &checker{at: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}}
	ck.check(doc.Content[0], reflect.TypeFor[Config](), "")
	// With the file's wrong keys and types reported, what decodes still
	// gets its semantic checks, so that one run names every problem: a
	// field whose own type is wrong keeps its default, and checks of it
	// or of what holds it are left out as they would only repeat it.
	if err := doc.Content[0].Decode(&c); err != nil && len(ck.problems) == 0 {
		return nil, []Problem{{Line: 1, Col: 1, Message: err.Error()}}
	}
	if err := c.laySiteAgents(ck.at); err != nil && len(ck.problems) == 0 {
		return nil, []Problem{{Line: 1, Col: 1, Message: err.Error()}}
	}
	semantic := append(c.chooseTarget(ck.keys), c.expandEnv(os.LookupEnv)...)
	semantic = append(semantic, c.problems()...)
	problems := ck.problems
	for _, p := range semantic {
		if !overlaps(p.Path, ck.problems) {
			problems = append(problems, p)
		}
	}
	for i, p := range problems {
		// A problem is placed at its field, or at the nearest field
		// written above it ("sites[0]" for a missing "sites[0].name").
		for path := p.Path; path != "" && p.Line == 0; path = parent(path) {
			if n, ok := ck.at[path]; ok {
				problems[i].Line, problems[i].Col = n.Line, n.Column
				break
			}
		}
	}
	slices.SortStableFunc(problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	return &c, problems
}

// overlaps reports whether path is, holds or is held by the field of
// one of the problems.
func overlaps(path string, problems []Problem) bool {
	for _, p := range problems {
		if within(path, p.Path) || within(p.Path, path) {
			return true
		}
	}
	return false
}

// within reports whether path is the field at or under parent.
func within(path, parent string) bool {
	if parent == "" || !strings.HasPrefix(path, parent) {
		return parent == ""
	}
	rest := path[len(parent):]
	return rest == "" || rest[0] == '.' || rest[0] == '['
}

// parent is the path of the field that holds path's field.
func parent(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// resolve makes the config's relative paths relative to dir.
func (c *Config) resolve(dir string) {
	abs := func(p *string) {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	for i := range c.Spec.Paths {
		abs(&c.Spec.Paths[i])
	}
	for _, p := range c.filePaths() {
		abs(p.value)
	}
}

// Validate checks what the types cannot.
func (c *Config) Validate() error {
	var errs []error
	for _, p := range c.problems() {
		errs = append(errs, errors.New(p.String()))
	}
	return errors.Join(errs...)
}

func (c *Config) problems() []Problem {
	var out []Problem
	add := func(path, format string, args ...any) {
		out = append(out, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	if c.Spec.Name == "" || strings.ContainsAny(c.Spec.Name, ": ") {
		add("spec.name", "%q: want a short name without spaces or colons", c.Spec.Name)
	}
	if _, err := plan.ParseMode(c.Policy.Mode); err != nil {
		add("policy.mode", "%v", err)
	}
	if c.Policy.MaxDeletePercent < 0 || c.Policy.MaxDeletePercent > 100 {
		add("policy.max_delete_percent", "%g: want 0-100", c.Policy.MaxDeletePercent)
	}
	out = append(out, c.targetProblems()...)
	seen := map[string]bool{}
	for i, s := range c.Sites {
		at := fmt.Sprintf("sites[%d]", i)
		if s.Name == "" || strings.ContainsAny(s.Name, ": ") {
			add(at+".name", "%q: want a short name without spaces or colons", s.Name)
		}
		if seen[s.Name] {
			add(at+".name", "site %q is declared twice", s.Name)
		}
		seen[s.Name] = true
		switch s.Neutron.Auth {
		case "", "noauth":
			if s.Neutron.Endpoint == "" {
				add(at+".neutron.endpoint", "required with auth noauth (site %s)", s.Name)
			}
		case "keystone":
		default:
			add(at+".neutron.auth", "%q: want noauth or keystone", s.Neutron.Auth)
		}
	}
	global := c.Agent.problems("agent")
	out = append(out, global...)
	for i, s := range c.Sites {
		if s.Agent == nil {
			continue
		}
		at := fmt.Sprintf("sites[%d].agent", i)
		for _, p := range s.Agent.problems(at) {
			// A problem the site only inherits is the file's, said once.
			inherited := slices.ContainsFunc(global, func(g Problem) bool {
				return g.Message == p.Message && strings.TrimPrefix(g.Path, "agent") == strings.TrimPrefix(p.Path, at)
			})
			if !inherited {
				out = append(out, p)
			}
		}
	}
	return out
}

// problems checks an agent section written at path.
func (a Agent) problems(path string) []Problem {
	var out []Problem
	if a.Sweep < a.Interval {
		out = append(out, Problem{Path: path + ".sweep", Message: fmt.Sprintf(
			"%v is shorter than agent.interval (%v): every sync would read both sides whole", a.Sweep, a.Interval)})
	}
	if a.RangeThreshold <= 0 || a.RangeThreshold > 1 {
		out = append(out, Problem{Path: path + ".range_threshold", Message: fmt.Sprintf(
			"%g: want a used ratio above 0 and at most 1 (0.8 shows the ranges 80%% used or more)", a.RangeThreshold)})
	}
	return append(out, a.leaseProblems(path)...)
}

// leaseProblems checks the agent's lease timing. A renewal may take one
// renew interval and may fail once, and the last interval before the
// expiry is the margin for clock skew and a write in flight, so the TTL
// must be at least three renew intervals.
func (a Agent) leaseProblems(path string) []Problem {
	switch a.Lease {
	case "", LeaseSoT, LeaseKubernetes:
	default:
		return []Problem{{Path: path + ".lease", Message: fmt.Sprintf("%q: want sot (a tag in the target) or kubernetes (a Lease)", a.Lease)}}
	}
	if a.Lease != LeaseKubernetes && a.Kubernetes != (Kubernetes{}) {
		return []Problem{{Path: path + ".kubernetes", Message: "set only with agent.lease: kubernetes"}}
	}
	switch {
	case a.LeaseTTL <= 0:
		return []Problem{{Path: path + ".lease_ttl", Message: fmt.Sprintf("%v: must be positive", a.LeaseTTL)}}
	case a.LeaseRenew <= 0:
		return []Problem{{Path: path + ".lease_renew", Message: fmt.Sprintf("%v: must be positive", a.LeaseRenew)}}
	case a.LeaseTTL < 3*a.LeaseRenew:
		return []Problem{{Path: path + ".lease_ttl", Message: fmt.Sprintf(
			"%v is less than 3 × agent.lease_renew (%v): a renewal may take one interval and fail once, and one more is the margin for clock skew before another agent may take the lease",
			a.LeaseTTL, a.LeaseRenew)}}
	}
	return nil
}

// SpecPaths are the spec paths, relative to the config file's folder.
func (c *Config) SpecPaths() []string { return slices.Clone(c.Spec.Paths) }

// StaticOwner is the owner of the spec's objects.
func (c *Config) StaticOwner() resource.Owner { return resource.StaticOwner(c.Spec.Name) }

// PlanPolicy is the plan policy for owner.
func (c *Config) PlanPolicy(owner resource.Owner) plan.Policy {
	p := plan.DefaultPolicy(owner)
	p.Mode = plan.Mode(c.Policy.Mode)
	p.MaxDeletePercent = c.Policy.MaxDeletePercent
	p.MaxDeleteMin = c.Policy.MaxDeleteMin
	p.MaxDeleteCount = c.Policy.MaxDeleteCount
	return p
}

// AgentFor is the agent section of site s: its own, or the file's.
func (c *Config) AgentFor(s *Site) Agent {
	if s != nil && s.Agent != nil {
		return *s.Agent
	}
	return c.Agent
}

// Site returns the site called name.
func (c *Config) Site(name string) (*Site, error) {
	i := slices.IndexFunc(c.Sites, func(s Site) bool { return s.Name == name })
	if i < 0 {
		var names []string
		for _, s := range c.Sites {
			names = append(names, s.Name)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("no site %q in the config: it declares no sites", name)
		}
		return nil, fmt.Errorf("no site %q in the config (its sites: %s)%s", name, strings.Join(names, ", "), didyoumean.Hint(name, names, nil))
	}
	return &c.Sites[i], nil
}

// WriteAllowed refuses writing to a URL whose host is not in allowed_hosts,
// so a config copied from staging cannot write to production by accident.
func (c *Config) WriteAllowed(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("target url %q: %w", rawURL, err)
	}
	host := u.Hostname()
	for _, h := range c.AllowedHosts {
		if strings.EqualFold(h, host) || strings.EqualFold(h, u.Host) {
			return nil
		}
	}
	return fmt.Errorf("writing to %s is refused: host %q is not in allowed_hosts of the config", rawURL, host)
}
