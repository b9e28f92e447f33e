package cli

import (
	"fmt"
	"io/fs"
	"net/url"
	"strings"

	"github.com/ipsync/ipsync/examples"
	netboxexamples "github.com/ipsync/ipsync/examples-netbox"
	"github.com/ipsync/ipsync/internal/nautobot/emulator"
	"github.com/ipsync/ipsync/internal/plural"
)

// demoServer is the server a demo runs against, and what it says of it.
type demoServer struct {
	section, url, host, token string
	spec                      fs.FS
	banner                    string
	// rerun: the server outlives the demo, so it may hold the demo's
	// objects from an earlier run.
	rerun bool
	done  func() string
	close func()
}

// demoTarget is the built-in Nautobot emulator, seeded as the examples
// need, or the real NetBox at rawURL.
func (e *env) demoTarget(target, rawURL string) (*demoServer, error) {
	switch target {
	case "nautobot":
		if rawURL != "" {
			return nil, usagef("--url is for --target netbox: the Nautobot demo runs against its built-in emulator")
		}
		srv := emulator.NewServer()
		if err := srv.Seed(demoSeed); err != nil {
			srv.Close()
			return nil, fmt.Errorf("seed emulator: %w", err)
		}
		banner := fmt.Sprintf("ipsync demo: a Nautobot EMULATOR (not a real Nautobot) listens on %s\nseeded: locations %s; roles %s; tenants %s",
			srv.URL(), strings.Join(demoSeed.Locations, ", "), strings.Join(demoSeed.Roles, ", "), strings.Join(demoSeed.Tenants, ", "))
		return &demoServer{section: "nautobot", url: srv.URL(), host: "127.0.0.1", token: emulator.DefaultToken, spec: examples.Spec(),
			banner: banner, close: srv.Close,
			done: func() string {
				return ": " + plural.Of(srv.Requests("", "/api/"), "request") + " served by the emulator"
			}}, nil
	case "netbox":
		if rawURL == "" {
			return nil, usagef("--target netbox needs --url: the NetBox to run the demo against")
		}
		u, err := url.Parse(rawURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, usagef("--url %q: want http(s)://host[:port] of a NetBox", rawURL)
		}
		token := e.getenv("IPSYNC_NETBOX_TOKEN")
		if token == "" {
			return nil, usagef("--target netbox needs the NetBox's API token in IPSYNC_NETBOX_TOKEN")
		}
		banner := fmt.Sprintf("ipsync demo: the NetBox at %s, a real server: the examples' NetBox flavour is written to it as owner static:demo\n"+
			"it must hold the sites %s; the roles %s; the tenants %s; the tags %s",
			rawURL, strings.Join(demoSeed.Locations, ", "), strings.Join(demoSeed.Roles, ", "), strings.Join(demoSeed.Tenants, ", "), strings.Join(demoSeed.Tags, ", "))
		return &demoServer{section: "netbox", url: rawURL, host: u.Hostname(), token: token, spec: netboxexamples.Spec(), banner: banner,
			rerun: true, close: func() {}, done: func() string { return "" }}, nil
	}
	return nil, usagef("--target %q: want nautobot (the built-in emulator) or netbox (a real NetBox at --url)", target)
}
