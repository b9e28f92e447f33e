package netbox

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"time"
)

// Config is how to reach one NetBox and how ipsync marks what it owns
// there.
type Config struct {
	URL string // base URL, e.g. https://netbox.example.com
	// Token is a v2 token "nbt_<key>.<secret>" (sent as "Bearer <t>") or a
	// v1 40-hex token (sent as "Token <t>"); read from env or a file by the
	// caller, never logged.
	Token       string
	PageSize    int // objects per list page; default 1000 (NetBox's MAX_PAGE_SIZE)
	BatchSize   int // objects per bulk write; default 250
	Concurrency int // list sweeps and single-object writes at once; default 4
	// InsecureSkipVerify turns TLS certificate checks off. It has no
	// effect with WithHTTPClient, whose transport is used as given.
	InsecureSkipVerify bool
	Timeout            time.Duration // per request attempt; default 60s
	// RequestDeadline is how long NetBox may go on with a request after
	// ipsync gave up on it: its gunicorn timeout, after which the worker
	// is killed and its transaction rolled back. A create whose answer was
	// lost is sent again only once that has passed or its objects are
	// found, where NetBox would keep a second copy. Default 120s (NetBox's
	// sample gunicorn.py), and never less than Timeout.
	RequestDeadline time.Duration
	// MaxRetries is how often a failed request is retried; default 5,
	// negative for none.
	MaxRetries int
	// MaxWait caps one request, its retries included (httpapi's
	// MaxWait); zero: no cap but MaxRetries.
	MaxWait    time.Duration
	Tag        string // marker tag; default "managed-by-ipsync"
	OwnerField string // custom field with the owner; default "ipsync_owner"
	VNIField   string // integer custom field with a prefix's VNI; default "vni"
	RIR        string // the RIR of the ASNs ipsync writes without one; default "private"
	// LocationScope says what an ipsync location names in NetBox, for
	// VLAN group and prefix scopes: "site" (default) or "location".
	LocationScope string
}

// Values of Config.LocationScope.
const (
	ScopeSite     = "site"
	ScopeLocation = "location"
)

var (
	v2Token = regexp.MustCompile(`^nbt_[A-Za-z0-9]{12}\.[A-Za-z0-9]+$`)
	v1Token = regexp.MustCompile(`^[0-9a-fA-F]{40}$`)
)

// auth is the Authorization header value of the token.
func (c Config) auth() string {
	if v1Token.MatchString(c.Token) {
		return "Token " + c.Token
	}
	return "Bearer " + c.Token
}

func (c Config) withDefaults() (Config, error) {
	if c.PageSize <= 0 {
		c.PageSize = 1000
	}
	if c.BatchSize <= 0 {
		c.BatchSize = 250
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 4
	}
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
	}
	if c.RequestDeadline <= 0 {
		c.RequestDeadline = 120 * time.Second
	}
	c.RequestDeadline = max(c.RequestDeadline, c.Timeout)
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = 5
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.Tag == "" {
		c.Tag = "managed-by-ipsync"
	}
	if c.OwnerField == "" {
		c.OwnerField = "ipsync_owner"
	}
	if c.VNIField == "" {
		c.VNIField = "vni"
	}
	if c.RIR == "" {
		c.RIR = "private"
	}
	if c.LocationScope == "" {
		c.LocationScope = ScopeSite
	}
	var errs []error
	if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("netbox url %q: want http(s)://host[:port]", c.URL))
	}
	switch {
	case c.Token == "":
		errs = append(errs, errors.New("netbox token is empty"))
	case !v2Token.MatchString(c.Token) && !v1Token.MatchString(c.Token):
		errs = append(errs, errors.New(`netbox token: want a v2 token "nbt_<key>.<secret>" or a v1 token of 40 hex digits`))
	}
	if c.LocationScope != ScopeSite && c.LocationScope != ScopeLocation {
		errs = append(errs, fmt.Errorf("netbox location scope %q: want %q or %q", c.LocationScope, ScopeSite, ScopeLocation))
	}
	return c, errors.Join(errs...)
}
