package neutron

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	osconfig "github.com/gophercloud/gophercloud/v2/openstack/config"
	"github.com/gophercloud/gophercloud/v2/openstack/config/clouds"
)

// counter counts HTTP round trips, so a read can say what it cost and
// benchmarks can report requests per read.
type counter struct {
	next http.RoundTripper
	n    atomic.Int64
}

func (c *counter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(req)
}

// newClient returns a network service client for cfg whose requests go
// through reqs.
func newClient(ctx context.Context, cfg Config, reqs *counter) (*gophercloud.ServiceClient, error) {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	reqs.next = transport
	httpClient := http.Client{Transport: reqs, Timeout: cfg.Timeout}

	if cfg.Auth == AuthNoauth {
		return fixedEndpoint(&gophercloud.ProviderClient{HTTPClient: httpClient}, cfg.Endpoint)
	}

	var (
		ao  gophercloud.AuthOptions
		eo  gophercloud.EndpointOpts
		err error
	)
	if cfg.Cloud != "" {
		opts := []clouds.ParseOption{clouds.WithCloudName(cfg.Cloud)}
		if cfg.Region != "" {
			opts = append(opts, clouds.WithRegion(cfg.Region))
		}
		var tlsConfig *tls.Config
		ao, eo, tlsConfig, err = clouds.Parse(opts...)
		if err != nil {
			return nil, fmt.Errorf("clouds.yaml entry %q: %w", cfg.Cloud, err)
		}
		if tlsConfig != nil {
			transport.TLSClientConfig = tlsConfig
		}
	} else {
		if ao, err = openstack.AuthOptionsFromEnv(); err != nil {
			return nil, fmt.Errorf("keystone credentials from OS_* environment: %w", err)
		}
		eo.Region = cfg.Region
	}
	// The agent runs for weeks; tokens expire after hours.
	ao.AllowReauth = true
	pc, err := osconfig.NewProviderClient(ctx, ao, osconfig.WithHTTPClient(httpClient))
	if err != nil {
		return nil, fmt.Errorf("keystone login at %s: %w", ao.IdentityEndpoint, err)
	}
	if cfg.Endpoint != "" {
		// The catalog is not consulted (nor its endpoints probed).
		return fixedEndpoint(pc, cfg.Endpoint)
	}
	sc, err := openstack.NewNetworkV2(pc, eo)
	if err != nil {
		return nil, fmt.Errorf("find the network endpoint in the service catalog: %w", err)
	}
	return sc, nil
}

func fixedEndpoint(pc *gophercloud.ProviderClient, endpoint string) (*gophercloud.ServiceClient, error) {
	base, err := baseURL(endpoint)
	if err != nil {
		return nil, err
	}
	return &gophercloud.ServiceClient{ProviderClient: pc, Endpoint: base, ResourceBase: base + "v2.0/", Type: "network"}, nil
}

// baseURL turns "http://host:9696", ".../" or ".../v2.0" into "http://host:9696/".
func baseURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("neutron endpoint %q: want http(s)://host[:port][/path]", endpoint)
	}
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/v2.0")
	u.Path = p + "/"
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}
