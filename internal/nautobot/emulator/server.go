package emulator

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/ipsync/ipsync/internal/reqcount"
)

// Handler serves the emulated API. It can be mounted on any listener (a
// CLI demo serves it on a port); NewServer wraps it in an httptest server.
type Handler struct {
	cfg     config
	allowed []string // API versions accepted

	mu sync.Mutex // guards st
	st *store

	counts reqcount.Counter
}

// NewHandler returns a handler whose state is a freshly installed
// Nautobot: the Global namespace and the default statuses.
func NewHandler(opts ...Option) *Handler {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	if len(cfg.tokens) == 0 {
		cfg.tokens[DefaultToken] = true
	}
	var defs []*kindDef
	for _, d := range kindDefs() {
		if !d.plugin || cfg.bgp {
			defs = append(defs, d)
		}
	}
	sv, _ := parseVersion(cfg.version)
	h := &Handler{cfg: cfg, allowed: allowedVersions(cfg.version), st: newStore(cfg.now, sv, defs)}
	if err := h.Seed(SeedData{}); err != nil {
		panic(fmt.Sprintf("emulator: default data: %v", err))
	}
	return h
}

// Server is an emulator listening on a local port.
type Server struct {
	*Handler
	ts *httptest.Server
}

// NewServer starts an emulator on a local port. Close it when done.
func NewServer(opts ...Option) *Server {
	h := NewHandler(opts...)
	var front http.Handler = h
	for _, f := range h.cfg.front {
		front = f(front)
	}
	s := &Server{Handler: h, ts: httptest.NewUnstartedServer(front)}
	// Clients that refuse the self-signed certificate are what TLS tests
	// are about; their handshake errors are not worth a log line.
	s.ts.Config.ErrorLog = log.New(dropHandshakeErrors{os.Stderr}, "", log.LstdFlags)
	if h.cfg.tls {
		s.ts.StartTLS()
	} else {
		s.ts.Start()
	}
	return s
}

type dropHandshakeErrors struct{ w io.Writer }

func (d dropHandshakeErrors) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("TLS handshake error")) {
		return len(p), nil
	}
	return d.w.Write(p)
}

// URL is the server's base URL, e.g. "http://127.0.0.1:4711".
func (s *Server) URL() string { return s.ts.URL }

// Client returns an HTTP client that trusts the server's certificate.
func (s *Server) Client() *http.Client { return s.ts.Client() }

// Close stops the server.
func (s *Server) Close() { s.ts.Close() }

// ServeHTTP counts the request and handles it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.counts.Add(r.Method, r.URL.Path)
	h.serve(w, r)
}

// Requests counts the requests received with method ("" for any) whose
// path starts with pathPrefix.
func (h *Handler) Requests(method, pathPrefix string) int {
	return h.counts.Requests(method, pathPrefix)
}

// ResetCounts forgets the requests counted so far.
func (h *Handler) ResetCounts() { h.counts.Reset() }

// request is what the handlers need to know about one request.
type request struct {
	r       *http.Request
	version apiVersion
	base    string
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request) {
	path, ok := strings.CutPrefix(r.URL.Path, "/api/")
	if !ok {
		writeDetail(w, http.StatusNotFound, "", "Not found.")
		return
	}
	ver, status, msg := h.negotiate(r)
	if status != 0 {
		writeDetail(w, status, "", msg)
		return
	}
	vs := ver.String()
	if status, msg := h.authenticate(r); status != 0 {
		writeDetail(w, status, vs, msg)
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	req := &request{r: r, version: ver, base: scheme + "://" + r.Host}
	if path == "status/" {
		h.status(w, req)
		return
	}
	if !strings.HasSuffix(path, "/") {
		writeDetail(w, http.StatusNotFound, vs, "Not found.")
		return
	}
	path = strings.TrimSuffix(path, "/")
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, x := range h.cfg.extras {
		if id, ok := below(path, x.path); ok {
			x.serve(h, w, req, id)
			return
		}
	}
	if t := h.tableAt(path); t != nil {
		h.serveList(w, req, t)
		return
	}
	if i := strings.LastIndexByte(path, '/'); i > 0 {
		if t := h.tableAt(path[:i]); t != nil {
			h.serveDetail(w, req, t, strings.ToLower(path[i+1:]))
			return
		}
	}
	writeDetail(w, http.StatusNotFound, vs, "Not found.")
}

// below reports whether path is the list at coll or one of its objects,
// and which ("" for the list).
func below(path, coll string) (string, bool) {
	if path == coll {
		return "", true
	}
	id, ok := strings.CutPrefix(path, coll+"/")
	return id, ok && id != "" && !strings.Contains(id, "/")
}

func (h *Handler) tableAt(path string) *table {
	for _, t := range h.st.tables {
		if t.def.path == path {
			return t
		}
	}
	return nil
}

func (h *Handler) serveList(w http.ResponseWriter, q *request, t *table) {
	switch q.r.Method {
	case http.MethodGet, http.MethodHead:
		h.list(w, q, t)
	case http.MethodPost:
		h.create(w, q, t)
	case http.MethodPatch, http.MethodPut:
		h.bulkUpdate(w, q, t)
	case http.MethodDelete:
		h.bulkDelete(w, q, t)
	default:
		writeDetail(w, http.StatusMethodNotAllowed, q.version.String(), fmt.Sprintf("Method %q not allowed.", q.r.Method))
	}
}

func (h *Handler) serveDetail(w http.ResponseWriter, q *request, t *table, id string) {
	r := t.byID[id]
	if r == nil {
		writeDetail(w, http.StatusNotFound, q.version.String(), "No "+t.def.model+" matches the given query.")
		return
	}
	switch q.r.Method {
	case http.MethodGet, http.MethodHead:
		e := h.encoder(q)
		e.record(r)
		writeJSON(w, http.StatusOK, q.version.String(), e.w.b)
	case http.MethodPatch, http.MethodPut:
		h.updateDetail(w, q, t, r)
	case http.MethodDelete:
		h.deleteDetail(w, q, t, r)
	default:
		writeDetail(w, http.StatusMethodNotAllowed, q.version.String(), fmt.Sprintf("Method %q not allowed.", q.r.Method))
	}
}

func (h *Handler) status(w http.ResponseWriter, q *request) {
	plugins := "{}"
	if h.cfg.bgp {
		plugins = `{"nautobot_bgp_models": "2.3.0"}`
	}
	body := fmt.Sprintf(`{"nautobot-version": %q, "plugins": %s, "python-version": "3.12.0"}`, h.cfg.version+".0", plugins)
	writeJSON(w, http.StatusOK, q.version.String(), []byte(body))
}

// authenticate checks the token as Nautobot's TokenAuthentication and
// TokenPermissions do. Nautobot answers 403, not 401, because its first
// authentication class (sessions) sends no WWW-Authenticate challenge.
func (h *Handler) authenticate(r *http.Request) (int, string) {
	parts := strings.Fields(r.Header.Get("Authorization"))
	if len(parts) == 0 || !strings.EqualFold(parts[0], "token") {
		return http.StatusForbidden, "Authentication credentials were not provided."
	}
	switch {
	case len(parts) == 1:
		return http.StatusForbidden, "Invalid token header. No credentials provided."
	case len(parts) > 2:
		return http.StatusForbidden, "Invalid token header. Token string should not contain spaces."
	}
	write, ok := h.cfg.tokens[parts[1]]
	if !ok {
		return http.StatusForbidden, "Invalid token"
	}
	if !write && r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions {
		return http.StatusForbidden, "You do not have permission to perform this action."
	}
	return 0, ""
}

func writeDetail(w http.ResponseWriter, status int, version, detail string) {
	body := append([]byte(`{"detail": `), appendQuoted(nil, detail)...)
	writeJSON(w, status, version, append(body, '}'))
}

func writeJSON(w http.ResponseWriter, status int, version string, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	if version != "" {
		w.Header().Set("API-Version", version)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
