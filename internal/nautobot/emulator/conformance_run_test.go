package emulator

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// scenario is a short sequence of requests whose answers must be the same
// on every target.
type scenario struct {
	name  string
	steps []step
}

// step is one request and what its answer must show. Strings in path,
// body and expectations may hold placeholders, see (*run).subst.
type step struct {
	what   string // why the step is there, shown when it fails
	line   string // run only on this release line; "" on all
	method string
	path   string
	header map[string]string
	body   any
	status int
	expect checks
	save   map[string]string // variable -> path of a string in the answer
	// pages, when set, replaces the request: a limit/offset read of a list.
	pages *paging
}

// run is one scenario on one target. Everything it creates is deleted
// when it ends, newest first, so that a real server is left as found.
type run struct {
	t    *testing.T
	tg   *target
	vars map[string]string
	seed map[string]string // "kind:name" -> id, shared by the target's runs
	made []string          // detail paths of created objects
}

func runScenario(t *testing.T, tg *target, seed map[string]string, sc scenario) {
	r := &run{t: t, tg: tg, vars: map[string]string{"sfx": randomSuffix(), "asn": randomASN()}, seed: seed}
	t.Cleanup(r.cleanup)
	for i, s := range sc.steps {
		if s.line != "" && s.line != tg.line {
			continue
		}
		r.step(i+1, s)
	}
}

func randomSuffix() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// randomASN is the base of a scenario's ASNs, in the 32-bit private range
// with room for a few above it.
func randomASN() string {
	n, _ := rand.Int(rand.Reader, big.NewInt(90_000_000))
	return strconv.FormatInt(4_200_000_000+n.Int64(), 10)
}

func (r *run) step(n int, s step) {
	t := r.t
	t.Helper()
	if s.pages != nil {
		r.page(n, s)
		return
	}
	path := r.subst(s.path)
	label := fmt.Sprintf("step %d (%s): %s %s", n, s.what, s.method, path)
	header := map[string]string{}
	for k, v := range s.header {
		header[k] = r.subst(v)
	}
	got, err := r.tg.do(s.method, path, header, r.substAny(s.body))
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	if s.method == http.MethodPost && got.status/100 == 2 {
		r.track(path, got.body)
	}
	if got.status != s.status {
		t.Fatalf("%s: status %d, want %d; body %.600s", label, got.status, s.status, got.raw)
	}
	for name, p := range s.save {
		v, ok := lookup(got.body, p)
		str, isStr := v.(string)
		if !ok || !isStr {
			t.Fatalf("%s: no string at %q to save as %s; body %.600s", label, p, name, got.raw)
		}
		r.vars[name] = str
	}
	for _, c := range s.expect.sorted() {
		path := r.subst(c.path)
		if msg := r.check(got, path, c.want); msg != "" {
			t.Errorf("%s: %s: %s; body %.600s", label, path, msg, got.raw)
		}
	}
}

// track remembers what a create made, for cleanup.
func (r *run) track(path string, body any) {
	coll, _, _ := strings.Cut(path, "?")
	add := func(v any) {
		if m, ok := v.(map[string]any); ok {
			if id, ok := m["id"].(string); ok {
				r.made = append(r.made, coll+id+"/")
			}
		}
	}
	if list, ok := body.([]any); ok {
		for _, v := range list {
			add(v)
		}
		return
	}
	add(body)
}

// cleanup deletes what the scenario created, newest first. An object
// already gone (deleted by the scenario or with its parent) is fine.
func (r *run) cleanup() {
	for i := len(r.made) - 1; i >= 0; i-- {
		got, err := r.tg.do(http.MethodDelete, r.made[i], nil, nil)
		switch {
		case err != nil:
			r.t.Errorf("cleanup: DELETE %s: %v", r.made[i], err)
		case got.status != http.StatusNoContent && got.status != http.StatusNotFound:
			r.t.Errorf("cleanup: DELETE %s = %d %.500s; the object is left behind", r.made[i], got.status, got.raw)
		}
	}
}

var placeholder = regexp.MustCompile(`\{\{([^}]+)\}\}`)

// seedPaths are where the objects Nautobot owns live, for {{kind:name}}.
var seedPaths = map[string]string{
	"location":     "/api/dcim/locations/",
	"locationtype": "/api/dcim/location-types/",
	"status":       "/api/extras/statuses/",
	"role":         "/api/extras/roles/",
	"tenant":       "/api/tenancy/tenants/",
	"tag":          "/api/extras/tags/",
	"namespace":    "/api/ipam/namespaces/",
}

// subst fills placeholders: {{sfx}} is the run's random suffix, {{base}}
// the target's base URL, {{uuid:x}} a fresh UUID named x, {{kind:name}}
// the id of a seed object (e.g. {{location:a11}}), {{ct:app.model}} the
// id of a content type, {{x}} a saved variable.
func (r *run) subst(s string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-2]
		if name == "base" {
			return r.tg.base
		}
		if v, ok := r.vars[name]; ok {
			return v
		}
		kind, key, ok := strings.Cut(name, ":")
		if ok && kind == "uuid" {
			r.vars[name] = uuid.NewString()
			return r.vars[name]
		}
		if ok && kind == "ct" {
			return r.contentTypeID(key)
		}
		if p := seedPaths[kind]; ok && p != "" {
			return r.seedID(kind, p, key)
		}
		r.t.Fatalf("placeholder %s: no such variable", m)
		return ""
	})
}

func (r *run) seedID(kind, path, name string) string {
	k := kind + ":" + name
	if id, ok := r.seed[k]; ok {
		return id
	}
	got, err := r.tg.do(http.MethodGet, path+"?name="+url.QueryEscape(name), nil, nil)
	if err != nil || got.status != http.StatusOK {
		r.t.Fatalf("look up %s %q: %v %d %.300s", kind, name, err, got.status, got.raw)
	}
	id, _ := lookup(got.body, "results.0.id")
	s, _ := id.(string)
	if n, _ := lookup(got.body, "count"); n != float64(1) || s == "" {
		r.t.Fatalf("look up %s %q: want exactly one, got %.300s", kind, name, got.raw)
	}
	r.seed[k] = s
	return s
}

// contentTypeID is the server's id of content type "app.model".
func (r *run) contentTypeID(name string) string {
	k := "ct:" + name
	if id, ok := r.seed[k]; ok {
		return id
	}
	app, model, _ := strings.Cut(name, ".")
	got, err := r.tg.do(http.MethodGet, "/api/extras/content-types/?app_label="+url.QueryEscape(app)+"&model="+url.QueryEscape(model), nil, nil)
	if err != nil || got.status != http.StatusOK {
		r.t.Fatalf("look up content type %s: %v %d %.300s", name, err, got.status, got.raw)
	}
	id, _ := lookup(got.body, "results.0.id")
	n, isNum := id.(float64)
	if c, _ := lookup(got.body, "count"); c != float64(1) || !isNum {
		r.t.Fatalf("look up content type %s: want exactly one, got %.300s", name, got.raw)
	}
	r.seed[k] = strconv.Itoa(int(n))
	return r.seed[k]
}

// num is a number in a body or expectation: variable name plus add, e.g.
// num{"asn", 1} for the scenario's second ASN.
type num struct {
	name string
	add  int64
}

func (r *run) substAny(v any) any {
	switch x := v.(type) {
	case string:
		return r.subst(x)
	case num:
		n, err := strconv.ParseInt(r.vars[x.name], 10, 64)
		if err != nil {
			r.t.Fatalf("number %s: %v", x.name, err)
		}
		return n + x.add
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[r.subst(k)] = r.substAny(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = r.substAny(e)
		}
		return out
	}
	return v
}
