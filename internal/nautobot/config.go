package nautobot

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is how to reach one Nautobot and how ipsync marks what it owns
// there.
type Config struct {
	URL   string // base URL, e.g. https://nautobot.example.com
	Token string // API token; read from env or a file by the caller, never logged
	// APIVersion is pinned in every request's Accept header. Default:
	// the server's own major.minor, read when the client connects. A pin
	// must be at least 2.2, where prefixes have several locations, and
	// no newer than the server.
	APIVersion  string
	PageSize    int // objects per list page; default 1000 (Nautobot's MAX_PAGE_SIZE)
	BatchSize   int // objects per bulk write; default 250
	Concurrency int // list sweeps, and bulk writes of IP addresses or VLANs, run at once; default 4
	// InsecureSkipVerify turns TLS certificate checks off. It has no
	// effect with WithHTTPClient, whose transport is used as given.
	InsecureSkipVerify bool
	Tag                string        // marker tag; default "managed-by-ipsync"
	OwnerField         string        // custom field with the owner; default "ipsync_owner"
	VNIField           string        // integer custom field with a prefix's VNI; default "vni"
	Timeout            time.Duration // per request attempt; default 60s
	// MaxRetries is how often a failed request is retried; default 5,
	// negative for none.
	MaxRetries int
	// MaxWait caps one request, its retries included (httpapi's
	// MaxWait); zero: no cap but MaxRetries.
	MaxWait time.Duration
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
	if c.Tag == "" {
		c.Tag = "managed-by-ipsync"
	}
	if c.OwnerField == "" {
		c.OwnerField = "ipsync_owner"
	}
	if c.VNIField == "" {
		c.VNIField = "vni"
	}
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = 5
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	var errs []error
	if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("nautobot url %q: want http(s)://host[:port]", c.URL))
	}
	if c.Token == "" {
		errs = append(errs, errors.New("nautobot token is empty"))
	}
	if c.APIVersion != "" && !versionAtLeast(c.APIVersion, 2, 2) {
		errs = append(errs, fmt.Errorf("nautobot api version %q: want major.minor, at least 2.2", c.APIVersion))
	}
	return c, errors.Join(errs...)
}

// versionAtLeast reports whether v ("major.minor") is at least major.minor.
func versionAtLeast(v string, major, minor int) bool {
	a, b, ok := strings.Cut(v, ".")
	ma, err1 := strconv.Atoi(a)
	mi, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}
