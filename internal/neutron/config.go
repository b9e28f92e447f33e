package neutron

import (
	"errors"
	"fmt"
	"time"
)

// Auth modes.
const (
	// AuthNoauth talks to Endpoint without a token (Neutron's
	// auth_strategy = noauth; tests and labs).
	AuthNoauth = "noauth"
	// AuthKeystone logs in through Keystone with the clouds.yaml entry
	// Cloud, or with the OS_* environment (passwords or application
	// credentials) when Cloud is empty.
	AuthKeystone = "keystone"
)

// Config says how to reach one Neutron.
type Config struct {
	// Endpoint is Neutron's URL, with or without "/v2.0". Required with
	// noauth; with keystone it overrides the catalog's endpoint.
	Endpoint string
	Auth     string
	Cloud    string
	Region   string
	// PageSize is the limit of each list request.
	PageSize int
	// Concurrency is how many kinds are read at the same time.
	Concurrency int
	// Timeout bounds each HTTP request.
	Timeout time.Duration
}

// Defaults of Config.
const (
	DefaultPageSize    = 1000
	DefaultConcurrency = 4
	DefaultTimeout     = 60 * time.Second
)

func (c Config) withDefaults() Config {
	if c.Auth == "" {
		c.Auth = AuthNoauth // as ipsync's config file treats an empty auth
	}
	if c.PageSize <= 0 {
		c.PageSize = DefaultPageSize
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	return c
}

// Validate reports a config that cannot work.
func (c Config) Validate() error {
	var errs []error
	switch c.Auth {
	case AuthNoauth, "":
		if c.Endpoint == "" {
			errs = append(errs, errors.New("neutron endpoint is required with auth noauth"))
		}
	case AuthKeystone:
	default:
		errs = append(errs, fmt.Errorf("neutron auth %q: want %s or %s", c.Auth, AuthNoauth, AuthKeystone))
	}
	return errors.Join(errs...)
}
