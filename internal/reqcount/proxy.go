package reqcount

import (
	"context"
	"errors"
	"net/http"
	"net/http/httputil"
	"net/url"
)

// Proxy forwards every request to upstream after counting it in c. logf
// hears of requests that could not be forwarded, except those the client
// itself gave up on (an agent shutting down is not news); the client is
// answered 502.
func Proxy(upstream *url.URL, c *Counter, logf func(format string, args ...any)) http.Handler {
	rp := httputil.NewSingleHostReverseProxy(upstream)
	rp.ErrorHandler = func(w http.ResponseWriter, req *http.Request, err error) {
		if !errors.Is(err, context.Canceled) {
			logf("proxy: %s %s: %v", req.Method, req.URL.Path, err)
		}
		w.WriteHeader(http.StatusBadGateway)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		c.Add(req.Method, req.URL.Path)
		rp.ServeHTTP(w, req)
	})
}
