package netbox

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/ipsync/ipsync/internal/sot"
)

// Config is how to reach one NetBox and how ipsync marks what it owns
// there.
type Config struct {
	// Settings' Token is a v2 token "nbt_<key>.<secret>" (sent as
	// "Bearer <t>") or a v1 40-hex token (sent as "Token <t>").
	sot.Settings
	// RequestDeadline is how long NetBox may go on with a request after
	// ipsync gave up on it: its gunicorn timeout, after which the worker
	// is killed and its transaction rolled back. A create whose answer was
	// lost is sent again only once that has passed or its objects are
	// found, where NetBox would keep a second copy. Default 120s (NetBox's
	// sample gunicorn.py), and never less than Timeout.
	RequestDeadline time.Duration
	RIR             string // the RIR of the ASNs ipsync writes without one; default "private"
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
	errs := c.Settings.WithDefaults("netbox")
	if c.RequestDeadline <= 0 {
		c.RequestDeadline = 120 * time.Second
	}
	c.RequestDeadline = max(c.RequestDeadline, c.Timeout)
	if c.RIR == "" {
		c.RIR = "private"
	}
	if c.LocationScope == "" {
		c.LocationScope = ScopeSite
	}
	if c.Token != "" && !v2Token.MatchString(c.Token) && !v1Token.MatchString(c.Token) {
		errs = append(errs, errors.New(`netbox token: want a v2 token "nbt_<key>.<secret>" or a v1 token of 40 hex digits`))
	}
	if c.LocationScope != ScopeSite && c.LocationScope != ScopeLocation {
		errs = append(errs, fmt.Errorf("netbox location scope %q: want %q or %q", c.LocationScope, ScopeSite, ScopeLocation))
	}
	return c, errors.Join(errs...)
}
