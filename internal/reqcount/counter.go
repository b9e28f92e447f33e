// Package reqcount counts HTTP requests by method and path, for tests that
// assert how many requests ipsync sent. An emulator counts what it serves;
// a real server is counted through Proxy, so that assertions read alike on
// both.
package reqcount

import (
	"strings"
	"sync"
)

// Counter counts requests by method and path. Its zero value is ready.
type Counter struct {
	mu sync.Mutex
	n  map[string]int
}

// Add counts one request.
func (c *Counter) Add(method, path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[method+" "+path]++
}

// Requests counts the requests with method ("" for any) whose path starts
// with pathPrefix.
func (c *Counter) Requests(method, pathPrefix string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k, v := range c.n {
		m, path, _ := strings.Cut(k, " ")
		if (method == "" || strings.EqualFold(method, m)) && strings.HasPrefix(path, pathPrefix) {
			n += v
		}
	}
	return n
}

// Reset forgets the requests counted so far.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.n)
}
