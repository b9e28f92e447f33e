package emulator

import (
	"net/http"
	"strings"
	"time"
)

// DefaultToken is the API token a server accepts when no WithToken
// option is given.
const DefaultToken = "0123456789abcdef0123456789abcdef01234567"

// Option configures a server.
type Option func(*config)

type config struct {
	tokens      map[string]bool // token -> write enabled
	version     string          // Nautobot version the server claims, "major.minor"
	pageSize    int             // PAGINATE_COUNT
	maxPageSize int             // MAX_PAGE_SIZE, 0 = unlimited
	now         func() time.Time
	bgp         bool
	strictCF    bool
	tls         bool
	shuffleTies bool
	extras      []extra
	front       []func(next http.Handler) http.Handler
}

// extra is an endpoint served besides the object tables': a collection
// path and what answers it and its objects (id "" for the list).
type extra struct {
	path  string
	serve func(h *Handler, w http.ResponseWriter, q *request, id string)
}

func defaultConfig() config {
	return config{tokens: map[string]bool{}, version: "3.1", pageSize: 50, maxPageSize: 1000, now: time.Now, bgp: true}
}

// WithToken adds a write-enabled API token.
func WithToken(token string) Option { return func(c *config) { c.tokens[token] = true } }

// WithReadOnlyToken adds a token whose writes are refused, as a Nautobot
// token with write_enabled off.
func WithReadOnlyToken(token string) Option { return func(c *config) { c.tokens[token] = false } }

// WithVersion sets the Nautobot version ("2.3", "3.1"), which decides the
// API versions accepted and whether many-to-many fields are left out of
// responses by default (3.0 and later) or may be asked for (2.4 and later).
func WithVersion(v string) Option { return func(c *config) { c.version = v } }

// WithPageSize sets PAGINATE_COUNT, the page size when limit is not given.
func WithPageSize(n int) Option { return func(c *config) { c.pageSize = n } }

// WithMaxPageSize sets MAX_PAGE_SIZE; 0 lifts the cap, so that limit=0
// returns everything in one page.
func WithMaxPageSize(n int) Option { return func(c *config) { c.maxPageSize = n } }

// WithClock sets the source of created/last_updated timestamps.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// WithoutBGP serves Nautobot without the nautobot-bgp-models plugin: its
// endpoints are 404 and its content type is unknown.
func WithoutBGP() Option { return func(c *config) { c.bgp = false } }

// WithStrictCustomFields refuses custom_fields keys that no custom field
// defines, with a 400. Nautobot itself drops them silently, which is the
// default here too.
func WithStrictCustomFields() Option { return func(c *config) { c.strictCF = true } }

// WithUnstableTies orders objects that tie in their model's ordering (IP
// addresses with one host in several namespaces, VLANs without a group)
// afresh for every list request, as PostgreSQL may for each page's query:
// offset paging then can repeat one of them and skip another, which a
// real Nautobot 3.2 was seen to do. By default ties are broken by id, so
// pages are stable.
func WithUnstableTies() Option { return func(c *config) { c.shuffleTies = true } }

// WithTLS makes NewServer serve HTTPS with a self-signed certificate.
func WithTLS() Option { return func(c *config) { c.tls = true } }

// WithChangeLog serves the change log (/api/extras/object-changes/) and
// the content types its filters name (/api/extras/content-types/). The
// log is kept either way; serving it is an option because only the
// following of changes reads it, which ipsync demo never does, and a
// binary that does not ask for it does not link its API.
func WithChangeLog() Option {
	return func(c *config) {
		c.extras = append(c.extras,
			extra{pathObjectChanges, func(h *Handler, w http.ResponseWriter, q *request, id string) {
				h.objectChanges(w, q, strings.ToLower(id))
			}},
			extra{pathContentTypes, func(h *Handler, w http.ResponseWriter, q *request, id string) {
				h.contentTypes(unversioned{w}, q, id)
			}})
	}
}

// WithFront puts front before the emulator on NewServer's port, as a
// proxy in front of a real server: it sees every request first and may
// answer it itself. Tests inject faults there.
func WithFront(front func(next http.Handler) http.Handler) Option {
	return func(c *config) { c.front = append(c.front, front) }
}
