// Package lease gives one agent per owner the right to write, using a
// Nautobot tag as the lock: tag names are unique, so of two agents creating
// the same lease tag exactly one succeeds, without any support for
// conditional writes in the API. The tag's description records the holder
// and expiry; an expired lease is deleted by id and contended for again.
package lease

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Config names the lease and says how to reach Nautobot.
type Config struct {
	URL        string
	Token      string
	APIVersion string
	// Name is what is leased, e.g. the owner "neutron:a11".
	Name string
	// Holder identifies this agent (host and pid), shown to operators.
	Holder string
	// TTL is how long a lease lasts without renewal.
	TTL time.Duration
	// ContentType is a content type the tag is allowed on; Nautobot
	// requires at least one.
	ContentType string
	HTTPClient  *http.Client
	Now         func() time.Time
}

// Lease is one agent's hold on a name.
type Lease struct {
	cfg Config
	id  string // of the tag while we hold it
}

// New returns a lease that is not yet held.
func New(cfg Config) *Lease {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.TTL <= 0 {
		cfg.TTL = 2 * time.Minute
	}
	if cfg.ContentType == "" {
		cfg.ContentType = "ipam.namespace"
	}
	if cfg.APIVersion == "" {
		cfg.APIVersion = "2.2"
	}
	return &Lease{cfg: cfg}
}

// TagName is the name of the tag that holds the lease.
func (l *Lease) TagName() string { return "ipsync-lease:" + l.cfg.Name }

type record struct {
	holder  string
	expires time.Time
}

// The description is readable by people looking at the tag in Nautobot.
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
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Acquire takes or renews the lease and reports whether this agent holds it.
func (l *Lease) Acquire(ctx context.Context) (bool, error) {
	desc := record{l.cfg.Holder, l.cfg.Now().Add(l.cfg.TTL)}.String()
	if l.id != "" {
		code, err := l.do(ctx, http.MethodPatch, "/api/extras/tags/"+l.id+"/", map[string]string{"description": desc}, nil)
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
	if _, err := l.do(ctx, http.MethodGet, "/api/extras/tags/?name="+url.QueryEscape(l.TagName()), nil, &page); err != nil {
		return false, fmt.Errorf("read lease %s: %w", l.cfg.Name, err)
	}
	if len(page.Results) > 0 {
		t := page.Results[0]
		rec, ok := parseRecord(t.Description)
		switch {
		case ok && rec.holder == l.cfg.Holder:
			l.id = t.ID // ours from before a restart
			return l.Acquire(ctx)
		case ok && l.cfg.Now().Before(rec.expires):
			return false, nil
		}
		// Expired (or not a lease record at all): remove that very tag. If
		// someone else already replaced it, this id is gone and the create
		// below decides.
		if code, err := l.do(ctx, http.MethodDelete, "/api/extras/tags/"+t.ID+"/", nil, nil); err != nil && code != http.StatusNotFound {
			return false, fmt.Errorf("clear expired lease %s: %w", l.cfg.Name, err)
		}
	}
	var created tag
	body := map[string]any{"name": l.TagName(), "description": desc, "color": "607d8b", "content_types": []string{l.cfg.ContentType}}
	code, err := l.do(ctx, http.MethodPost, "/api/extras/tags/", body, &created)
	switch {
	case err == nil:
		l.id = created.ID
		return true, nil
	case code == http.StatusBadRequest:
		return false, nil // another agent created it first
	}
	return false, fmt.Errorf("take lease %s: %w", l.cfg.Name, err)
}

// Release gives the lease up, so a waiting agent takes over at once.
func (l *Lease) Release(ctx context.Context) error {
	if l.id == "" {
		return nil
	}
	code, err := l.do(ctx, http.MethodDelete, "/api/extras/tags/"+l.id+"/", nil, nil)
	l.id = ""
	if err != nil && code != http.StatusNotFound {
		return fmt.Errorf("release lease %s: %w", l.cfg.Name, err)
	}
	return nil
}

// Holder returns who holds the lease now, for the status page.
func (l *Lease) Holder(ctx context.Context) (string, error) {
	var page struct {
		Results []tag `json:"results"`
	}
	if _, err := l.do(ctx, http.MethodGet, "/api/extras/tags/?name="+url.QueryEscape(l.TagName()), nil, &page); err != nil {
		return "", err
	}
	if len(page.Results) == 0 {
		return "", nil
	}
	rec, ok := parseRecord(page.Results[0].Description)
	if !ok || !l.cfg.Now().Before(rec.expires) {
		return "", nil
	}
	return rec.holder, nil
}

var errStatus = errors.New("unexpected status")

func (l *Lease) do(ctx context.Context, method, path string, in, out any) (int, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(l.cfg.URL, "/")+path, body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Token "+l.cfg.Token)
	req.Header.Set("Accept", "application/json; version="+l.cfg.APIVersion)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := l.cfg.HTTPClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%w %d from %s %s: %s", errStatus, resp.StatusCode, method, path, strings.TrimSpace(string(data)))
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("decode %s %s: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil
}
