package httpapi

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
)

// APIError is an answer that is not a success.
type APIError struct {
	Method string
	Path   string
	Status int
	Body   string // the start of the body, for messages
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s %s: %d %s: %s", e.Method, e.Path, e.Status, http.StatusText(e.Status), e.Body)
}

// Error is the error for an unexpected answer to r.
func (r Request) Error(resp *Response) error {
	return &APIError{Method: r.Method, Path: r.Path, Status: resp.Status, Body: Snippet(resp.Body)}
}

// permanent says why retrying err cannot help, or "" when it may: nothing
// listens at the address, the name does not resolve, the certificate is not
// trusted. A server that restarts refuses for a moment too, but the agent
// retries whole syncs, and a person at the CLI wants the answer now.
func (c *Client) permanent(err error) string {
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return "the host name does not resolve"
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("nothing listens at that address; is %s.url right and the server up?", c.cfg.Server)
	case errors.As(err, &cert):
		return "the server's certificate is not trusted"
	}
	return ""
}
