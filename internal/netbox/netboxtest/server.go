package netboxtest

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/reqcount"
	"github.com/ipsync/ipsync/internal/serverstall"
)

// The environment variables that name the real NetBox.
const (
	URLEnv   = "IPSYNC_NETBOX_URL"
	TokenEnv = "IPSYNC_NETBOX_TOKEN"
	// StallEnv names a command running `scripts/netbox-up.sh stall` for
	// that server (with its NETBOX_* settings), for tests of a stalled
	// server.
	StallEnv = "IPSYNC_NETBOX_STALL"
	// A NetBox with netbox-branching and netbox-change-control
	// (scripts/netbox-up.sh start with NETBOX_REVIEW_PLUGINS=1), and the
	// token of the user its review policy lets approve (token reviewer).
	ReviewURLEnv     = "IPSYNC_NETBOX_REVIEW_URL"
	ReviewTokenEnv   = "IPSYNC_NETBOX_REVIEW_TOKEN"
	ReviewerTokenEnv = "IPSYNC_NETBOX_REVIEWER_TOKEN"
)

// Server is the real NetBox a test runs against, behind a counting proxy.
type Server struct {
	// Name is "netbox-<version>", for subtests and messages.
	Name    string
	version string
	proxy   string
	direct  conn // the server itself, for what the harness reads uncounted
	counts  *reqcount.Counter
	// cleanAt is the newest change in NetBox's changelog when the server
	// was last known to be clean: what a test created is logged after it.
	cleanAt int
}

// New gives t the NetBox the environment names, emptied now and again when
// t ends, keeping the seed. Without IPSYNC_NETBOX_URL and
// IPSYNC_NETBOX_TOKEN, t is skipped with a message saying how to run it.
func New(t testing.TB) *Server {
	t.Helper()
	return start(t, URLEnv, TokenEnv, true)
}

// NewReview is New for the NetBox with the review plugins the environment
// names, with the token of its reviewer: a user who may approve what the
// server's token requests.
func NewReview(t testing.TB) (s *Server, reviewerToken string) {
	t.Helper()
	reviewer := os.Getenv(ReviewerTokenEnv)
	if os.Getenv(ReviewURLEnv) != "" && reviewer == "" {
		t.Fatalf("%s is set, %s is not: set it to `scripts/netbox-up.sh token reviewer` of that server", ReviewURLEnv, ReviewerTokenEnv)
	}
	return start(t, ReviewURLEnv, ReviewTokenEnv, true), reviewer
}

// NewForBenchmark is New for a benchmark: the server is emptied before it,
// not after. A benchmark's objects are many, and restarting the server
// (scripts/netbox-up.sh start restores a clean database) is faster than
// deleting them through the API.
func NewForBenchmark(tb testing.TB) *Server {
	tb.Helper()
	return start(tb, URLEnv, TokenEnv, false)
}

func start(tb testing.TB, urlEnv, tokenEnv string, after bool) *Server {
	tb.Helper()
	s, err := connect(os.Getenv(urlEnv), os.Getenv(tokenEnv))
	if err != nil {
		if errors.Is(err, errNotNamed) {
			how := "scripts/netbox-up.sh start; scripts/netbox-up.sh token"
			if urlEnv == ReviewURLEnv {
				how = "NETBOX_REVIEW_PLUGINS=1 scripts/netbox-up.sh start, with its token and token reviewer in " + ReviewerTokenEnv
			}
			tb.Skipf("set %s and %s to a NetBox 4.7 (%s) to run against it", urlEnv, tokenEnv, how)
		}
		tb.Fatalf("NetBox from %s: %v", urlEnv, err)
	}
	if err := s.emptyBefore(); err != nil {
		tb.Fatalf("%s: empty the server for the test: %v", s.Name, err)
	}
	upstream, _ := url.Parse(s.direct.base)
	ts := httptest.NewServer(reqcount.Proxy(upstream, s.counts, tb.Logf))
	s.proxy = ts.URL
	tb.Cleanup(func() {
		ts.Close()
		if !after {
			return
		}
		if err := s.emptyAfter(); err != nil {
			tb.Errorf("%s: empty the server after the test: %v", s.Name, err)
		}
	})
	return s
}

// Staller returns what stops the server's gunicorn workers for d (the
// command StallEnv names; tb is skipped, saying so, without it): a
// request NetBox holds then is still being processed after a client that
// gave up on it. The function may be called from any goroutine.
func (s *Server) Staller(tb testing.TB) func(d time.Duration) {
	tb.Helper()
	command := os.Getenv(StallEnv)
	if command == "" {
		tb.Skipf("set %s to a command running `scripts/netbox-up.sh stall` for this server (with its NETBOX_* settings) to run", StallEnv)
	}
	return func(d time.Duration) { serverstall.Run(tb, command, d) }
}

// errNotNamed: the environment names no NetBox.
var errNotNamed = errors.New(URLEnv + " or " + TokenEnv + " is not set")

// connect checks that the server answers with the token and names it by
// its version.
func connect(rawURL, token string) (*Server, error) {
	base := strings.TrimRight(rawURL, "/")
	if base == "" || token == "" {
		return nil, errNotNamed
	}
	if _, err := url.Parse(base); err != nil {
		return nil, fmt.Errorf("%s=%q: %w", URLEnv, rawURL, err)
	}
	c := conn{base: base, token: token, http: http.DefaultClient}
	var st struct {
		Version string `json:"netbox-version"`
	}
	if err := c.call(http.MethodGet, "/api/status/", nil, &st); err != nil {
		return nil, fmt.Errorf("is it up, and is %s its token? %w", TokenEnv, err)
	}
	return &Server{Name: "netbox-" + st.Version, version: st.Version, direct: c, counts: &reqcount.Counter{}}, nil
}

// URL is where ipsync should talk to the server: the counting proxy.
func (s *Server) URL() string { return s.proxy }

// Upstream is the server itself, bypassing the proxy: for what must not be
// counted, and for links NetBox renders with its own address.
func (s *Server) Upstream() string { return s.direct.base }

// Token is an API token with every permission.
func (s *Server) Token() string { return s.direct.token }

// Version is NetBox's version, as /api/status/ reports it ("4.7.3").
func (s *Server) Version() string { return s.version }

// Client is an HTTP client for URL.
func (s *Server) Client() *http.Client { return http.DefaultClient }

// Requests counts the requests sent through the proxy with method ("" for
// any) whose path starts with pathPrefix, since the test began or the last
// ResetCounts.
func (s *Server) Requests(method, pathPrefix string) int {
	return s.counts.Requests(method, pathPrefix)
}

// ResetCounts forgets the requests counted so far.
func (s *Server) ResetCounts() { s.counts.Reset() }

// Objects returns every object of a kind, named by object type
// ("ipam.vlan"), as the API renders it, filtered by query parameters
// ("vid=100", "cf_ipsync_owner=static:default"). It reads the server
// directly: these requests are not counted.
func (s *Server) Objects(t testing.TB, kind string, filter ...string) []map[string]any {
	t.Helper()
	path, ok := endpoint(kind)
	if !ok {
		t.Fatalf("netboxtest knows no endpoint for %s", kind)
	}
	q := url.Values{}
	for _, f := range filter {
		k, v, found := strings.Cut(f, "=")
		if !found {
			t.Fatalf("filter %q: want name=value", f)
		}
		q.Add(k, v)
	}
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	got, err := s.direct.list(path)
	if err != nil {
		t.Fatalf("%s: read %s: %v", s.Name, kind, err)
	}
	return got
}

// Count is how many objects of a kind the server holds that match filter.
func (s *Server) Count(t testing.TB, kind string, filter ...string) int {
	t.Helper()
	return len(s.Objects(t, kind, filter...))
}

// ID is the id of the one object of a kind named name (a seeded site,
// role, tenant, tag or RIR), failing t unless there is exactly one.
func (s *Server) ID(t testing.TB, kind, name string) int {
	t.Helper()
	objs := s.Objects(t, kind, "name="+name)
	if len(objs) != 1 {
		t.Fatalf("%s: %d %s named %q, want 1", s.Name, len(objs), kind, name)
	}
	id, ok := objs[0]["id"].(float64)
	if !ok {
		t.Fatalf("%s: %s %q has id %v", s.Name, kind, name, objs[0]["id"])
	}
	return int(id)
}

// Do sends one request through the proxy, as a person or another tool
// would, and returns the answer whatever its status. path may carry a
// query; header may be nil, and its Authorization replaces the harness's
// token (an empty one sends none).
func (s *Server) Do(t testing.TB, method, path string, body any, header http.Header) Response {
	t.Helper()
	proxied := conn{base: s.proxy, token: s.direct.token, http: http.DefaultClient}
	r, err := proxied.do(method, path, body, header)
	if err != nil {
		t.Fatalf("%s: %s %s: %v", s.Name, method, path, err)
	}
	return r
}

// Call is Do for a request that must succeed: it fails t unless the answer
// is 2xx, and decodes it into out if out is not nil.
func (s *Server) Call(t testing.TB, method, path string, body, out any) {
	t.Helper()
	if err := s.CallErr(method, path, body, out); err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
}

// CallAs is Call with another user's token (a reviewer's).
func (s *Server) CallAs(t testing.TB, token, method, path string, body, out any) {
	t.Helper()
	if err := (conn{base: s.proxy, token: token, http: http.DefaultClient}).call(method, path, body, out); err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
}

// CallErr is Call for code without a test at hand (benchmark helpers).
func (s *Server) CallErr(method, path string, body, out any) error {
	return conn{base: s.proxy, token: s.direct.token, http: http.DefaultClient}.call(method, path, body, out)
}

// Reset empties the server again, keeping its seed, as between tests.
func (s *Server) Reset(tb testing.TB) {
	tb.Helper()
	if err := s.emptyAfter(); err != nil {
		tb.Fatalf("%s: reset: %v", s.Name, err)
	}
}

// emptyBefore makes the server clean unless the changelog shows that the
// harness emptied it last, and notes where the changelog then ends.
func (s *Server) emptyBefore() error {
	id, emptied, err := s.direct.newestChange()
	if err != nil || emptied {
		s.cleanAt = id
		return err
	}
	if err := s.direct.empty(Seed(), nil); err != nil {
		return err
	}
	s.cleanAt, _, err = s.direct.newestChange()
	return err
}

// emptyAfter deletes what was created since the server was last clean:
// only the object types the changelog names, or every type when a test
// created more than one page of the changelog tells.
func (s *Server) emptyAfter() error {
	kinds, complete, err := s.direct.createdSince(s.cleanAt)
	if err != nil {
		return err
	}
	if complete && len(kinds) == 0 {
		return nil
	}
	if !complete {
		kinds = nil
	}
	if err := s.direct.empty(Seed(), kinds); err != nil {
		return err
	}
	s.cleanAt, _, err = s.direct.newestChange()
	return err
}
