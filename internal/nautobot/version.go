package nautobot

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// minServer is the oldest Nautobot the client talks to. Older servers
// differ in ways that break it without an error that says so:
//   - before 2.3.13 a client-chosen id on create is ignored, so a create
//     retried after a lost answer cannot find what the first attempt
//     wrote, and would write it twice;
//   - before 2.3.6 a VLAN group has no range field, so group ranges are
//     dropped and every VID range check is wrong.
//
// 2.4 is also the oldest line still maintained (LTM). Within it, the
// prefix filter of prefix location assignments takes a UUID only from
// 2.4.4 (before, it matches nothing): see assignmentsByUUID.
var minServer = serverVersion{2, 4, 0}

// assignmentsByUUID is the first version whose prefix location
// assignments can be filtered by prefix id.
var assignmentsByUUID = serverVersion{2, 4, 4}

// serverVersion is a Nautobot release, e.g. 3.2.7.
type serverVersion struct{ major, minor, patch int }

func (v serverVersion) String() string { return fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch) }

func (v serverVersion) less(o serverVersion) bool {
	if v.major != o.major {
		return v.major < o.major
	}
	if v.minor != o.minor {
		return v.minor < o.minor
	}
	return v.patch < o.patch
}

// parseServerVersion reads "3.2.7", "2.4.44" or a pre-release such as
// "3.0.0b1" (its numeric prefix); a missing patch is 0.
func parseServerVersion(s string) (serverVersion, error) {
	parts := strings.SplitN(strings.TrimSpace(s), ".", 3)
	var n [3]int
	for i, p := range parts {
		end := 0
		for end < len(p) && p[end] >= '0' && p[end] <= '9' {
			end++
		}
		v, err := strconv.Atoi(p[:end])
		if err != nil || (i < 2 && end != len(p)) {
			return serverVersion{}, fmt.Errorf("nautobot version %q: want major.minor.patch", s)
		}
		n[i] = v
	}
	if len(parts) < 2 {
		return serverVersion{}, fmt.Errorf("nautobot version %q: want major.minor.patch", s)
	}
	return serverVersion{n[0], n[1], n[2]}, nil
}

// server is what the client learnt about Nautobot when it connected.
type server struct {
	version serverVersion
	// api is the REST API version pinned in every request's Accept
	// header: the configured one, or else the server's own major.minor,
	// the newest it speaks.
	api string
}

// connect reads the server's version from /api/status/ once, refuses
// versions older than minServer, and picks the API version to pin. A
// failed connect is not remembered: the next request tries again.
func (c *Client) connect(ctx context.Context) (*server, error) {
	c.connMu.Lock()
	defer c.connMu.Unlock()
	if c.server != nil {
		return c.server, nil
	}
	var st struct {
		Version string `json:"nautobot-version"`
	}
	r := httpapi.Request{Method: http.MethodGet, Path: "/api/status/",
		Decode: func(b []byte) error { return json.Unmarshal(b, &st) }}
	// Unpinned: the version to pin is what this asks.
	resp, err := c.api.Do(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("connect to nautobot: %w", err)
	}
	if resp.Status != http.StatusOK {
		if err := c.api.WrongServer(resp.Body); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("connect to nautobot: %w", r.Error(resp))
	}
	if err := c.api.WrongServer(resp.Body); st.Version == "" && err != nil {
		return nil, err
	}
	v, err := parseServerVersion(st.Version)
	if err != nil {
		return nil, fmt.Errorf("connect to nautobot: /api/status/: %w", err)
	}
	if v.less(minServer) {
		return nil, fmt.Errorf("nautobot %s at %s is too old: ipsync needs nautobot %s or later", v, c.api.Base().Host, minServer)
	}
	own := fmt.Sprintf("%d.%d", v.major, v.minor)
	api := c.cfg.APIVersion
	switch {
	case api == "":
		api = own
	case !pinFits(api, v):
		return nil, fmt.Errorf("nautobot api version %s is pinned, but nautobot %s speaks at most %s; pin %s or less, or leave api_version empty", api, v, own, own)
	}
	c.server = &server{version: v, api: api}
	c.log.Debug("connected", "nautobot", v.String(), "api", api)
	return c.server, nil
}

// pinFits reports whether the API version pin (checked as major.minor by
// Config) is one server v speaks: none newer than its own major.minor.
func pinFits(pin string, v serverVersion) bool {
	a, b, _ := strings.Cut(pin, ".")
	ma, _ := strconv.Atoi(a)
	mi, _ := strconv.Atoi(b)
	return ma < v.major || ma == v.major && mi <= v.minor
}

// ServerVersion connects if needed and returns Nautobot's version, e.g.
// "3.2.7", and the API version the client pins, e.g. "3.2".
func (c *Client) ServerVersion(ctx context.Context) (version, api string, err error) {
	s, err := c.connect(ctx)
	if err != nil {
		return "", "", err
	}
	return s.version.String(), s.api, nil
}
