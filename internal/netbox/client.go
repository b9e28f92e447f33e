package netbox

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/sot"
)

// Client talks to one NetBox. It is safe for concurrent use.
type Client struct {
	cfg   Config
	clock clock.Clock
	// holder names this client in the records of its creates on their
	// way (intent.go).
	holder string
	log    *slog.Logger
	// decode decodes the pages of lists (newDecoder).
	decode   func([]byte, any) error
	progress sot.Progress
	api      *httpapi.Client
	// conn is how api was made, for a client of the same NetBox in a
	// branch (InBranch).
	conn httpapi.Config
}

// New checks cfg, fills its defaults, and returns a client built with
// opts (sot.WithHTTPClient, WithClock, WithProgress).
func New(cfg Config, logger *slog.Logger, opts ...sot.Option) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("netbox config: %w", err)
	}
	c := &Client{cfg: cfg, holder: holderName()}
	hc, t := sot.Connect(cfg.Settings, "netbox", logger, opts, httpapi.Config{Auth: cfg.auth(), Identify: true})
	c.api, c.log, c.conn = httpapi.New(hc), hc.Log, hc
	c.clock, c.progress, c.decode = t.Clock, t.Progress, newDecoder().Decode
	return c, nil
}

// InBranch returns a client of the same NetBox whose every request reads
// and writes the netbox-branching branch with schema id schemaID (the
// X-NetBox-Branch header takes the schema id, not the branch's name): the
// whole engine, markers and If-Match included, works in the branch, and
// main is untouched until the branch is merged.
func (c *Client) InBranch(schemaID string) *Client {
	b := *c
	b.conn.Header = http.Header{"X-NetBox-Branch": {schemaID}}
	b.conn.Log = c.log.With("branch", schemaID)
	b.api, b.log = httpapi.New(b.conn), b.conn.Log
	return &b
}
