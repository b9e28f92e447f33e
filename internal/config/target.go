package config

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/ipsync/ipsync/internal/didyoumean"
)

// The source-of-truth servers ipsync writes to. One config writes to one.
const (
	TargetNautobot = "nautobot"
	TargetNetBox   = "netbox"
)

var targets = []string{TargetNautobot, TargetNetBox}

// NetBox is the target when Target is "netbox". The token comes from
// IPSYNC_NETBOX_TOKEN or TokenFile.
type NetBox struct {
	URL         string        `yaml:"url"`
	TokenFile   string        `yaml:"token_file"`
	PageSize    int           `yaml:"page_size"`
	BatchSize   int           `yaml:"batch_size"`
	Concurrency int           `yaml:"concurrency"`
	Timeout     time.Duration `yaml:"timeout"`
	// MaxWait caps one request, its retries included.
	MaxWait            time.Duration `yaml:"max_wait"`
	InsecureSkipVerify bool          `yaml:"insecure_skip_verify"`
	// RequestDeadline is how long NetBox may still be writing a request
	// ipsync gave up on (gunicorn's timeout).
	RequestDeadline time.Duration `yaml:"request_deadline"`
	// RIR is the RIR new ASNs get: NetBox requires one on every ASN.
	RIR string `yaml:"rir"`
	// LocationScope says what a location name of the spec means in
	// NetBox, which has sites and locations where Nautobot has only
	// locations: "site" or "location".
	LocationScope string `yaml:"location_scope"`
}

// Location scopes of NetBox.
const (
	ScopeSite     = "site"
	ScopeLocation = "location"
)

func defaultNetBox() NetBox {
	return NetBox{PageSize: 1000, BatchSize: 250, Concurrency: 4, Timeout: 60 * time.Second, MaxWait: 3 * time.Minute, RIR: "private", LocationScope: ScopeSite}
}

// TargetName is the configured server's name, as people write it, for
// messages: "Nautobot" or "NetBox".
func (c *Config) TargetName() string {
	if c.Target == TargetNetBox {
		return "NetBox"
	}
	return "Nautobot"
}

// TargetURL is the configured server's URL, "" when the config has none.
func (c *Config) TargetURL() string {
	if c.Target == TargetNetBox {
		return c.NetBox.URL
	}
	return c.Nautobot.URL
}

// chooseTarget settles the target of a file that does not name one: the
// one server section it has, or Nautobot. A file with both sections must
// say which it writes to, rather than have ipsync guess. keys are the
// top-level keys the file wrote.
func (c *Config) chooseTarget(keys map[string]*yaml.Node) []Problem {
	if _, ok := keys["target"]; ok {
		return nil
	}
	nautobot, netbox := keys["nautobot"], keys["netbox"]
	switch {
	case nautobot != nil && netbox != nil:
		return []Problem{{Line: netbox.Line, Col: netbox.Column, Path: "netbox", Message: fmt.Sprintf(
			"the config has both a nautobot section (line %d) and a netbox section: set target: nautobot or target: netbox to say which ipsync writes to",
			nautobot.Line)}}
	case netbox != nil:
		c.Target = TargetNetBox
	default:
		c.Target = TargetNautobot
	}
	return nil
}

// targetProblems checks the target and the netbox section, which
// --target netbox may use even where it is not the target.
func (c *Config) targetProblems() []Problem {
	var out []Problem
	add := func(path, format string, args ...any) {
		out = append(out, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	switch c.Target {
	case "", TargetNautobot, TargetNetBox:
	default:
		add("target", "%q: want nautobot or netbox%s", c.Target, didyoumean.Hint(c.Target, targets, nil))
	}
	if c.Target == TargetNetBox && c.NetBox.URL == "" {
		add("netbox.url", "required with target netbox: the NetBox to write to, like https://netbox.example.com")
	}
	if c.Target == TargetNetBox || c.NetBox.URL != "" {
		out = append(out, c.NetBox.problems()...)
	}
	for _, w := range []struct {
		section          string
		timeout, maxWait time.Duration
	}{{"nautobot", c.Nautobot.Timeout, c.Nautobot.MaxWait}, {"netbox", c.NetBox.Timeout, c.NetBox.MaxWait}} {
		if w.maxWait < 0 || (w.maxWait > 0 && w.maxWait < w.timeout) {
			add(w.section+".max_wait", "%v is shorter than %s.timeout (%v): not one attempt could end within it", w.maxWait, w.section, w.timeout)
		}
	}
	for _, u := range []struct{ path, url string }{{"nautobot.url", c.Nautobot.URL}, {"netbox.url", c.NetBox.URL}} {
		if u.url == "" {
			continue
		}
		p, err := url.Parse(u.url)
		if err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
			add(u.path, "%q: want http(s)://host[:port]", u.url)
			continue
		}
		// Some clients want the API's URL, ipsync the server's: with the
		// /api kept every request would miss (/api/api/...).
		if trimmed := strings.TrimRight(p.Path, "/"); strings.HasSuffix(trimmed, "/api") {
			p.Path = strings.TrimSuffix(trimmed, "/api")
			add(u.path, "%q ends in /api: give the server's address, %q; ipsync adds the API's path itself", u.url, p.String())
		}
	}
	return out
}

func (n NetBox) problems() []Problem {
	var out []Problem
	add := func(path, format string, args ...any) {
		out = append(out, Problem{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	if n.LocationScope != ScopeSite && n.LocationScope != ScopeLocation {
		add("netbox.location_scope", "%q: want site (spec locations are NetBox sites) or location (NetBox locations)%s",
			n.LocationScope, didyoumean.Hint(n.LocationScope, []string{ScopeSite, ScopeLocation}, nil))
	}
	if n.RIR == "" {
		add("netbox.rir", "want the name of the RIR new ASNs get (default private); NetBox requires one on every ASN")
	}
	for _, f := range []struct {
		path string
		v    int
	}{{"netbox.page_size", n.PageSize}, {"netbox.batch_size", n.BatchSize}, {"netbox.concurrency", n.Concurrency}} {
		if f.v <= 0 {
			add(f.path, "%d: must be positive", f.v)
		}
	}
	if n.PageSize > 1000 {
		add("netbox.page_size", "%d: NetBox answers at most 1000 objects a page (its MAX_PAGE_SIZE)", n.PageSize)
	}
	if n.Timeout <= 0 {
		add("netbox.timeout", "%v: must be positive", n.Timeout)
	}
	return out
}
