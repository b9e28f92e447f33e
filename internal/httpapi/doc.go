// Package httpapi sends JSON requests to a source of truth's REST API
// (Nautobot or NetBox) and retries what can succeed on retry: network
// errors, attempt timeouts, 5xx, 429 after its Retry-After, and 2xx
// answers cut short on the way. What an answer means is the adapter's
// business; this package only gets one answer per logical request.
package httpapi
