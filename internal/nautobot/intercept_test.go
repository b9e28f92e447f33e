package nautobot

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// interceptor sits between a client and the emulator: it records every
// request, and answer, when it returns ok, answers a request in the
// emulator's stead, as a real Nautobot does where the emulator does not
// (yet).
type interceptor struct {
	next   http.RoundTripper
	answer func(r *http.Request, body []byte) (status int, respBody string, ok bool)

	mu   sync.Mutex
	seen []string // "METHOD /path?query"
}

func (i *interceptor) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	i.mu.Lock()
	i.seen = append(i.seen, r.Method+" "+r.URL.RequestURI())
	i.mu.Unlock()
	if i.answer != nil {
		if status, b, ok := i.answer(r, body); ok {
			return &http.Response{StatusCode: status, Status: http.StatusText(status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
				Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(b)),
				ContentLength: int64(len(b)), Request: r}, nil
		}
	}
	return i.next.RoundTrip(r)
}

// requests returns the recorded requests that start with prefix
// ("POST /api/ipam/vlans/").
func (i *interceptor) requests(prefix string) []string {
	i.mu.Lock()
	defer i.mu.Unlock()
	var out []string
	for _, s := range i.seen {
		if strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	return out
}

// intercept puts an interceptor between e's client and its server, the
// emulator or a real one (whose client has the default transport).
func intercept(e *env, answer func(r *http.Request, body []byte) (int, string, bool)) *interceptor {
	next := e.srv.Client().Transport
	if next == nil {
		next = http.DefaultTransport
	}
	i := &interceptor{next: next, answer: answer}
	e.sendWith(func(c *httpapi.Config) { c.HTTP = &http.Client{Transport: i} })
	return i
}

// strictCustomFields answers a key filter on custom fields as every
// Nautobot does: there is no such filter, and strict filtering refuses it.
func strictCustomFields(r *http.Request, _ []byte) (int, string, bool) {
	if strings.HasPrefix(r.URL.Path, pathCustomFields) && r.URL.Query().Has("key") {
		return http.StatusBadRequest, `{"key": ["Unknown filter field"]}`, true
	}
	return 0, "", false
}
