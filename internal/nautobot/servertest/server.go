// Package servertest gives tests the Nautobot they run against: the in-repo
// emulator, and every real server the environment names, behind one type,
// so that one test body proves a behaviour on each.
//
//	IPSYNC_NAUTOBOT_URL, IPSYNC_NAUTOBOT_TOKEN          a Nautobot 3.x
//	IPSYNC_NAUTOBOT_LTM_URL, IPSYNC_NAUTOBOT_LTM_TOKEN  a Nautobot 2.4 LTM
//	IPSYNC_NAUTOBOT_SHELL, IPSYNC_NAUTOBOT_LTM_SHELL    their `scripts/nautobot-up.sh shell`, for tests that need one
//	IPSYNC_NAUTOBOT_STALL, IPSYNC_NAUTOBOT_LTM_STALL    their `scripts/nautobot-up.sh stall`, for tests of a stalled server
//
// (scripts/nautobot-up.sh start prints the URL; `token` prints the token.)
// A real server is emptied of everything ipsync or a test may have made
// before and after each test, keeping the data the script seeds, so tests
// never see each other's leftovers. Tests that inject faults use the
// emulator alone.
package servertest

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/nautobot/emulator"
	"github.com/ipsync/ipsync/internal/nautobot/emulator/emulatortest"
	"github.com/ipsync/ipsync/internal/reqcount"
	"github.com/ipsync/ipsync/internal/serverstall"
)

// Seed is what the tests refer to and Nautobot owns. A real server has it
// from scripts/nautobot-up.sh; the emulator is given the same.
var Seed = emulator.SeedData{
	Locations: []string{"DC-A11", "DC-B22", "a11", "a12"},
	Roles:     []string{"provisioning", "storage", "oob", "loopback", "tenant-net"},
	Tenants:   []string{"platform", "netops", "acme"},
	Tags:      []string{"routed", "pxe", "blue", "red"},
}

// Server is one Nautobot a test runs against.
type Server struct {
	// Name is "emulator" or "nautobot-<version>", the subtest's name.
	Name  string
	url   string
	token string
	http  *http.Client
	emu   *emulatortest.Server // nil for a real server
	real  *real
	// shell runs the Python on its stdin in the server's nautobot-server
	// shell (a sh command line); shellVar is where it came from.
	shell, shellVar string
	// stall stops the server's workers for the seconds appended (a sh
	// command line); stallVar is where it came from.
	stall, stallVar string
}

// Staller returns what holds requests for a test of a stalled server.
// On a real server it stops every worker for d (scripts/nautobot-up.sh
// stall, named by IPSYNC_NAUTOBOT_STALL or IPSYNC_NAUTOBOT_LTM_STALL; tb
// is skipped, saying so, where the environment does not name it); the
// emulator holds the next request of method to path for d. Either way
// the request held is handled after a client that gave up on it. The
// function returned may be called from any goroutine.
func (s *Server) Staller(tb testing.TB) func(method, path string, d time.Duration) {
	tb.Helper()
	if s.emu != nil {
		return func(method, path string, d time.Duration) {
			s.emu.Inject(emulatortest.Fault{Method: method, PathPrefix: path, Times: 1, Stall: d})
		}
	}
	if s.stall == "" {
		tb.Skipf("set %s to a command running `scripts/nautobot-up.sh stall` for this server (with its NAUTOBOT_* settings) to run", s.stallVar)
	}
	return func(_, _ string, d time.Duration) { serverstall.Run(tb, s.stall, d) }
}

// Shell is the command line that runs the Python on its stdin in a real
// server's nautobot-server shell, for what only code inside Nautobot can
// do (a change context that changes an object twice, as a Job does). tb is
// skipped, saying how to name it, where the environment does not.
func (s *Server) Shell(tb testing.TB) string {
	tb.Helper()
	if s.real == nil {
		tb.Fatal("Shell of the emulator: it has no nautobot-server")
	}
	if s.shell == "" {
		tb.Skipf("set %s to a command running `scripts/nautobot-up.sh shell` for this server (with its NAUTOBOT_* settings) to run", s.shellVar)
	}
	return s.shell
}

// URL is where ipsync should talk to the server. For a real server it is
// a counting proxy in front of it, so that tests can count requests.
func (s *Server) URL() string { return s.url }

// Token is an API token with every permission.
func (s *Server) Token() string { return s.token }

// Client is the HTTP client that trusts the server.
func (s *Server) Client() *http.Client { return s.http }

// Real reports whether this is a real Nautobot.
func (s *Server) Real() bool { return s.emu == nil }

// Emulator is the emulator behind s, or nil for a real server.
func (s *Server) Emulator() *emulatortest.Server { return s.emu }

// Requests counts the requests sent with method ("" for any) whose path
// starts with pathPrefix since the last ResetCounts.
func (s *Server) Requests(method, pathPrefix string) int {
	if s.emu != nil {
		return s.emu.Requests(method, pathPrefix)
	}
	return s.real.counts.Requests(method, pathPrefix)
}

// ResetCounts forgets the requests counted so far.
func (s *Server) ResetCounts() {
	if s.emu != nil {
		s.emu.ResetCounts()
		return
	}
	s.real.counts.Reset()
}

// Objects returns every object of a kind, named by object type
// ("ipam.vlan"), as the API renders it at depth 0 with many-to-many
// fields included.
func (s *Server) Objects(t testing.TB, kind string) []map[string]any {
	t.Helper()
	if s.emu != nil {
		return s.emu.Objects(kind)
	}
	got, err := s.real.objects(kind)
	if err != nil {
		t.Fatalf("%s: read %s: %v", s.Name, kind, err)
	}
	return got
}

// Count is how many objects of a kind the server holds.
func (s *Server) Count(t testing.TB, kind string) int {
	t.Helper()
	return len(s.Objects(t, kind))
}

// Seed creates what d lists that is missing.
func (s *Server) Seed(t testing.TB, d emulator.SeedData) {
	t.Helper()
	var err error
	if s.emu != nil {
		err = s.emu.Seed(d)
	} else {
		err = s.real.seed(d)
	}
	if err != nil {
		t.Fatalf("%s: seed: %v", s.Name, err)
	}
}

// Call sends one request as a person or another tool would, outside
// ipsync, and fails the test unless the answer is 2xx. out, if not nil,
// receives the decoded answer.
func (s *Server) Call(t testing.TB, method, path string, body any, out any) {
	t.Helper()
	status, raw, err := call(s.http, s.url, s.token, method, path, body)
	if err != nil || status >= 300 {
		t.Fatalf("%s: %s %s: %d %v %s", s.Name, method, path, status, err, raw)
	}
	if out != nil {
		if err := decode(raw, out); err != nil {
			t.Fatalf("%s: %s %s: %v", s.Name, method, path, err)
		}
	}
}

// CallErr is Call for code without a test at hand (benchmark helpers).
func (s *Server) CallErr(method, path string, body any, out any) error {
	status, raw, err := call(s.http, s.url, s.token, method, path, body)
	if err == nil && status >= 300 {
		err = fmt.Errorf("%s %s: %d %s", method, path, status, raw)
	}
	if err == nil && out != nil {
		err = decode(raw, out)
	}
	return err
}

// Reset empties a real server again, keeping its seed, as between tests.
func (s *Server) Reset(tb testing.TB) {
	tb.Helper()
	if s.real == nil {
		tb.Fatal("Reset of the emulator: start a new one instead")
	}
	if err := s.real.reset(); err != nil {
		tb.Fatalf("%s: reset: %v", s.Name, err)
	}
}

// Emulator starts a seeded emulator for t.
func Emulator(t testing.TB, opts ...emulator.Option) *Server {
	t.Helper()
	emu := emulatortest.NewServer(opts...)
	t.Cleanup(emu.Close)
	if err := emu.Seed(Seed); err != nil {
		t.Fatal(err)
	}
	return &Server{Name: "emulator", url: emu.URL(), token: emulator.DefaultToken, http: emu.Client(), emu: emu}
}

// line is one real server the environment may name: its URL and token,
// and the command that runs Python in its nautobot-server shell.
type line struct{ urlVar, tokenVar, shellVar, stallVar, what string }

var lines = []line{
	{"IPSYNC_NAUTOBOT_URL", "IPSYNC_NAUTOBOT_TOKEN", "IPSYNC_NAUTOBOT_SHELL", "IPSYNC_NAUTOBOT_STALL", "Nautobot 3.x"},
	{"IPSYNC_NAUTOBOT_LTM_URL", "IPSYNC_NAUTOBOT_LTM_TOKEN", "IPSYNC_NAUTOBOT_LTM_SHELL", "IPSYNC_NAUTOBOT_LTM_STALL", "Nautobot 2.4 LTM"},
}

// Each runs fn as a subtest against the emulator and then against each
// real server the environment names; a real server that is not named is a
// skipped subtest saying how to name it.
func Each(t *testing.T, fn func(t *testing.T, s *Server)) {
	t.Helper()
	t.Run("emulator", func(t *testing.T) { fn(t, Emulator(t)) })
	EachReal(t, fn)
}

// EachNewest is Each with the newest line alone (Nautobot 3.x): for tests
// of what sits above the adapter, which the LTM's servers cannot change
// once the adapter's and the site sync's tests pass on it.
func EachNewest(t *testing.T, fn func(t *testing.T, s *Server)) {
	t.Helper()
	t.Run("emulator", func(t *testing.T) { fn(t, Emulator(t)) })
	eachOf(t, lines[:1], fn)
}

// EachReal runs fn as a subtest against each real server the environment
// names, skipping those it does not name.
func EachReal(t *testing.T, fn func(t *testing.T, s *Server)) {
	t.Helper()
	eachOf(t, lines, fn)
}

func eachOf(t *testing.T, lines []line, fn func(t *testing.T, s *Server)) {
	t.Helper()
	for _, l := range lines {
		u := strings.TrimRight(os.Getenv(l.urlVar), "/")
		if u == "" {
			t.Run(strings.ToLower(strings.ReplaceAll(l.what, " ", "-")), func(t *testing.T) {
				t.Skipf("set %s and %s to a %s (scripts/nautobot-up.sh start) to run against it", l.urlVar, l.tokenVar, l.what)
			})
			continue
		}
		s, err := connect(u, os.Getenv(l.tokenVar))
		if err != nil {
			t.Fatalf("%s from %s: %v", l.what, l.urlVar, err)
		}
		s.shell, s.shellVar = os.Getenv(l.shellVar), l.shellVar
		s.stall, s.stallVar = os.Getenv(l.stallVar), l.stallVar
		t.Run(s.Name, func(t *testing.T) {
			s.url = s.real.start(t, true).URL
			fn(t, s)
		})
	}
}

// Real3 is the Nautobot 3.x the environment names, emptied for tb, for
// benchmarks that need one real server; tb is skipped without it. It is
// not emptied after tb: a benchmark's objects are many, and restarting the
// server (scripts/nautobot-up.sh start) restores a clean one faster.
func Real3(tb testing.TB) *Server {
	tb.Helper()
	l := lines[0]
	u := strings.TrimRight(os.Getenv(l.urlVar), "/")
	if u == "" {
		tb.Skipf("set %s and %s to a %s (scripts/nautobot-up.sh start) to run", l.urlVar, l.tokenVar, l.what)
	}
	s, err := connect(u, os.Getenv(l.tokenVar))
	if err != nil {
		tb.Fatalf("%s from %s: %v", l.what, l.urlVar, err)
	}
	s.url = s.real.start(tb, false).URL
	s.shell, s.shellVar = os.Getenv(l.shellVar), l.shellVar
	return s
}

// connect checks that the server answers and names it by its version.
func connect(u, token string) (*Server, error) {
	if token == "" {
		return nil, fmt.Errorf("no token")
	}
	var st struct {
		Version string `json:"nautobot-version"`
	}
	status, raw, err := call(http.DefaultClient, u, token, http.MethodGet, "/api/status/", nil)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("status %d: %s", status, raw)
	}
	if err == nil {
		err = decode(raw, &st)
	}
	if err != nil {
		return nil, fmt.Errorf("GET /api/status/: %w", err)
	}
	r := &real{upstream: u, token: token, counts: &reqcount.Counter{}}
	return &Server{Name: "nautobot-" + st.Version, token: token, http: http.DefaultClient, real: r}, nil
}
