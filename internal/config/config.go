// Package config reads ipsync.yaml: where the spec lives, which Nautobot to
// write to, the sites whose Neutron is read, and the ownership policy.
// Secrets are never in it: tokens and passwords come from env or files.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// Config is the whole file. Each component gets only its own section.
type Config struct {
	Spec         Spec     `yaml:"spec"`
	Marker       Marker   `yaml:"marker"`
	Policy       Policy   `yaml:"policy"`
	Nautobot     Nautobot `yaml:"nautobot"`
	AllowedHosts []string `yaml:"allowed_hosts"`
	Sites        []Site   `yaml:"sites"`
	Agent        Agent    `yaml:"agent"`

	dir string // relative paths are relative to the config file
}

// Spec says where the static YAML spec is and under which name it owns
// objects (owner "static:<name>").
type Spec struct {
	Name  string   `yaml:"name"`
	Paths []string `yaml:"paths"`
}

// Marker is how ipsync marks what it owns in Nautobot.
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

// Nautobot is the target. The token comes from TokenEnv (default
// IPSYNC_NAUTOBOT_TOKEN) or TokenFile.
type Nautobot struct {
	URL                string        `yaml:"url"`
	TokenFile          string        `yaml:"token_file"`
	APIVersion         string        `yaml:"api_version"`
	PageSize           int           `yaml:"page_size"`
	BatchSize          int           `yaml:"batch_size"`
	Concurrency        int           `yaml:"concurrency"`
	Timeout            time.Duration `yaml:"timeout"`
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
	// Neutron (the one write ipsync makes to Neutron).
	SegmentRanges bool `yaml:"segment_ranges"`
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
	Listen    string        `yaml:"listen"`
	Interval  time.Duration `yaml:"interval"`
	Jitter    float64       `yaml:"jitter"`
	RabbitMQ  RabbitMQ      `yaml:"rabbitmq"`
	LeaseTTL  time.Duration `yaml:"lease_ttl"`
	Coalesce  time.Duration `yaml:"coalesce"`
	StatusDir string        `yaml:"status_dir"`
}

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
		Spec:     Spec{Name: "default"},
		Marker:   Marker{Tag: "managed-by-ipsync", CustomField: "ipsync_owner", VNIField: "vni"},
		Policy:   Policy{Mode: string(plan.ModeSync), MaxDeletePercent: 10, MaxDeleteMin: 5},
		Nautobot: Nautobot{APIVersion: "2.2", PageSize: 1000, BatchSize: 250, Concurrency: 4, Timeout: 60 * time.Second},
		Agent: Agent{Listen: "127.0.0.1:9478", Interval: 10 * time.Minute, Jitter: 0.1, LeaseTTL: 2 * time.Minute,
			Coalesce: 200 * time.Millisecond,
			RabbitMQ: RabbitMQ{Exchange: "neutron", Topic: "notifications.info"}},
	}
}

// Load reads, defaults and validates the file at path.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	c.dir = filepath.Dir(path)
	return c, nil
}

// Parse decodes a config document strictly: unknown fields are errors.
func Parse(data []byte) (*Config, error) {
	c := Default()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	// An empty document (io.EOF) means all defaults.
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Validate checks what the types cannot.
func (c *Config) Validate() error {
	var errs []error
	if c.Spec.Name == "" || strings.ContainsAny(c.Spec.Name, ": ") {
		errs = append(errs, fmt.Errorf("spec.name %q: want a short name without spaces or colons", c.Spec.Name))
	}
	if _, err := plan.ParseMode(c.Policy.Mode); err != nil {
		errs = append(errs, fmt.Errorf("policy.mode: %w", err))
	}
	if c.Policy.MaxDeletePercent < 0 || c.Policy.MaxDeletePercent > 100 {
		errs = append(errs, fmt.Errorf("policy.max_delete_percent %g: want 0-100", c.Policy.MaxDeletePercent))
	}
	if c.Nautobot.URL != "" {
		u, err := url.Parse(c.Nautobot.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			errs = append(errs, fmt.Errorf("nautobot.url %q: want http(s)://host[:port]", c.Nautobot.URL))
		}
	}
	seen := map[string]bool{}
	for i, s := range c.Sites {
		if s.Name == "" || strings.ContainsAny(s.Name, ": ") {
			errs = append(errs, fmt.Errorf("sites[%d].name %q: want a short name without spaces or colons", i, s.Name))
		}
		if seen[s.Name] {
			errs = append(errs, fmt.Errorf("sites[%d]: site %q is declared twice", i, s.Name))
		}
		seen[s.Name] = true
		switch s.Neutron.Auth {
		case "", "noauth":
			if s.Neutron.Endpoint == "" {
				errs = append(errs, fmt.Errorf("site %s: neutron.endpoint is required with auth noauth", s.Name))
			}
		case "keystone":
		default:
			errs = append(errs, fmt.Errorf("site %s: neutron.auth %q: want noauth or keystone", s.Name, s.Neutron.Auth))
		}
	}
	return errors.Join(errs...)
}

// SpecPaths are the spec paths, relative to the config file's folder.
func (c *Config) SpecPaths() []string {
	out := make([]string, len(c.Spec.Paths))
	for i, p := range c.Spec.Paths {
		if filepath.IsAbs(p) || c.dir == "" {
			out[i] = p
		} else {
			out[i] = filepath.Join(c.dir, p)
		}
	}
	return out
}

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

// Site returns the site called name.
func (c *Config) Site(name string) (*Site, error) {
	i := slices.IndexFunc(c.Sites, func(s Site) bool { return s.Name == name })
	if i < 0 {
		var names []string
		for _, s := range c.Sites {
			names = append(names, s.Name)
		}
		return nil, fmt.Errorf("no site %q in the config (sites: %s)", name, strings.Join(names, ", "))
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
