// Package lease gives one agent per owner the right to write (and one
// apply the record of its creates on their way, netbox's intents), using a tag
// in the target (Nautobot or NetBox) as the lock: both servers keep tag
// names unique, so of two agents creating the same lease tag exactly one
// succeeds, without relying on conditional writes. The tag's description
// records the holder and expiry; an expired lease is deleted by id and
// contended for again. What differs between the servers, the fields a new
// tag needs, is given by the caller (TagFields).
package lease

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/ownership"
)

// API sends one JSON request to the target; *nautobot.Client and
// *netbox.Client do, with their token, TLS settings and retries. A status of
// 300 or more is an error.
type API interface {
	Call(ctx context.Context, method, path string, query url.Values, in, out any) (int, error)
}

// Config names the lease.
type Config struct {
	// Name is what is leased, e.g. the owner "neutron:a11".
	Name string
	// Holder identifies this agent (host and pid), shown to operators.
	Holder string
	// TTL is how long a lease lasts without renewal.
	TTL time.Duration
	// Clock tells the time the expiry is written and judged by (default
	// the wall clock).
	Clock clock.Clock
}

// Lease is one agent's hold on a name.
type Lease struct {
	api    API
	fields TagFields
	cfg    Config
	id     string // of the tag while we hold it
}

// New returns a lease, not yet held, kept as a tag in the server api talks
// to; fields are what that server requires of a new tag.
func New(api API, fields TagFields, cfg Config) *Lease {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real()
	}
	if cfg.TTL <= 0 {
		cfg.TTL = 2 * time.Minute
	}
	return &Lease{api: api, fields: fields, cfg: cfg}
}

// TagName is the name of the tag that holds the lease.
func (l *Lease) TagName() string { return ownership.LeaseTagPrefix + l.cfg.Name }

type record struct {
	holder  string
	expires time.Time
}

// The description is readable by people looking at the tag in the server's UI.
func (r record) String() string {
	return fmt.Sprintf("ipsync lease held by %s until %s", r.holder, r.expires.UTC().Format(time.RFC3339))
}

func parseRecord(s string) (record, bool) {
	rest, ok := strings.CutPrefix(s, "ipsync lease held by ")
	if !ok {
		return record{}, false
	}
	holder, until, ok := strings.Cut(rest, " until ")
	if !ok {
		return record{}, false
	}
	t, err := time.Parse(time.RFC3339, until)
	if err != nil {
		return record{}, false
	}
	return record{holder, t}, true
}

type tag struct {
	ID          objectID `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
}

// Acquire takes or renews the lease and reports whether this agent holds it.
func (l *Lease) Acquire(ctx context.Context) (bool, error) {
	desc := record{l.cfg.Holder, l.cfg.Clock.Now().Add(l.cfg.TTL)}.String()
	if l.id != "" {
		code, err := l.api.Call(ctx, http.MethodPatch, tagsPath+l.id+"/", nil, map[string]string{"description": desc}, nil)
		switch {
		case err == nil:
			return true, nil
		case code != http.StatusNotFound:
			return false, fmt.Errorf("renew lease %s: %w", l.cfg.Name, err)
		}
		l.id = "" // deleted by someone who found it expired: contend again
	}
	var page struct {
		Results []tag `json:"results"`
	}
	if _, err := l.api.Call(ctx, http.MethodGet, tagsPath, l.byName(), nil, &page); err != nil {
		return false, fmt.Errorf("read lease %s: %w", l.cfg.Name, err)
	}
	if len(page.Results) > 0 {
		t := page.Results[0]
		rec, ok := parseRecord(t.Description)
		switch {
		case ok && rec.holder == l.cfg.Holder:
			l.id = string(t.ID) // ours from before a restart
			return l.Acquire(ctx)
		case ok && l.cfg.Clock.Now().Before(rec.expires):
			return false, nil
		}
		// Expired (or not a lease record at all): remove that very tag. If
		// someone else already replaced it, this id is gone and the create
		// below decides.
		if code, err := l.api.Call(ctx, http.MethodDelete, tagsPath+string(t.ID)+"/", nil, nil, nil); err != nil && code != http.StatusNotFound {
			return false, fmt.Errorf("clear expired lease %s: %w", l.cfg.Name, err)
		}
	}
	return l.create(ctx, desc)
}

// Take takes a lease the caller has just read to be free: one create, no
// read first. It reports false when another holder took it meanwhile.
func (l *Lease) Take(ctx context.Context) (bool, error) {
	return l.create(ctx, record{l.cfg.Holder, l.cfg.Clock.Now().Add(l.cfg.TTL)}.String())
}

// create contends for a free lease by creating its tag.
func (l *Lease) create(ctx context.Context, desc string) (bool, error) {
	body := l.fields(l.TagName())
	body["name"], body["description"], body["color"] = l.TagName(), desc, "607d8b"
	var created tag
	code, err := l.api.Call(ctx, http.MethodPost, tagsPath, nil, body, &created)
	if err == nil {
		l.id = string(created.ID)
		return true, nil
	}
	if code != http.StatusBadRequest {
		return false, fmt.Errorf("take lease %s: %w", l.cfg.Name, err)
	}
	// Refused: another agent created the tag first, or our own create
	// went through before its answer was lost and the retry was refused.
	// If no such tag exists the server refused the tag itself, which no
	// wait would cure.
	var page struct {
		Results []tag `json:"results"`
	}
	if _, rerr := l.api.Call(ctx, http.MethodGet, tagsPath, l.byName(), nil, &page); rerr != nil {
		return false, fmt.Errorf("read lease %s after a refused create: %w", l.cfg.Name, rerr)
	}
	if len(page.Results) == 0 {
		return false, fmt.Errorf("take lease %s: the server refused the lease tag: %w", l.cfg.Name, err)
	}
	if rec, ok := parseRecord(page.Results[0].Description); ok && rec.holder == l.cfg.Holder {
		l.id = string(page.Results[0].ID)
		return true, nil
	}
	return false, nil
}

// Release gives the lease up, so a waiting agent takes over at once.
func (l *Lease) Release(ctx context.Context) error {
	if l.id == "" {
		return nil
	}
	code, err := l.api.Call(ctx, http.MethodDelete, tagsPath+l.id+"/", nil, nil, nil)
	l.id = ""
	if err != nil && code != http.StatusNotFound {
		return fmt.Errorf("release lease %s: %w", l.cfg.Name, err)
	}
	return nil
}

// Holder returns who holds the lease now, for the status page.
func (l *Lease) Holder(ctx context.Context) (string, error) {
	holder, _, err := l.Expiry(ctx)
	return holder, err
}

// Expiry returns who holds the lease now and until when; holder is ""
// when nobody does.
func (l *Lease) Expiry(ctx context.Context) (holder string, until time.Time, err error) {
	var page struct {
		Results []tag `json:"results"`
	}
	if _, err := l.api.Call(ctx, http.MethodGet, tagsPath, l.byName(), nil, &page); err != nil {
		return "", time.Time{}, err
	}
	if len(page.Results) == 0 {
		return "", time.Time{}, nil
	}
	rec, ok := parseRecord(page.Results[0].Description)
	if !ok || !l.cfg.Clock.Now().Before(rec.expires) {
		return "", time.Time{}, nil
	}
	return rec.holder, rec.expires, nil
}

const tagsPath = "/api/extras/tags/"

// byName finds the lease tag.
func (l *Lease) byName() url.Values { return url.Values{"name": {l.TagName()}} }
