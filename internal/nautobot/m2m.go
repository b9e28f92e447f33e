package nautobot

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
)

// sweepPrefixes reads prefixes with their locations. Nautobot 3.x leaves
// many-to-many fields out unless asked with exclude_m2m=false, a
// parameter that servers before 2.4 refuse as an unknown filter. A client
// pinned to API 2.4 or later may always send it; an older pin asks one
// prefix first and sends it only if that prefix lacks locations.
func (r *reading) sweepPrefixes(ctx context.Context, _ *Client, path string, q url.Values, _ *tally) ([]wirePrefix, error) {
	m2m, err := r.c.needsM2M(ctx, r.t)
	if err != nil {
		return nil, err
	}
	if m2m {
		q2 := url.Values{"exclude_m2m": {"false"}}
		for k, v := range q {
			q2[k] = v
		}
		q = q2
	}
	got, err := sweep[wirePrefix](ctx, r.c, path, q, r.t)
	if err == nil && len(got) > 0 && got[0].Locations == nil {
		return nil, errors.New("nautobot leaves prefix locations out of its answers; pin api_version 2.4 or later")
	}
	return got, err
}

// needsM2M reports whether prefix reads must ask for exclude_m2m=false.
func (c *Client) needsM2M(ctx context.Context, t *tally) (bool, error) {
	if versionAtLeast(c.cfg.APIVersion, 2, 4) {
		return true, nil
	}
	c.mu.Lock()
	known, need := c.m2mKnown, c.m2m
	c.mu.Unlock()
	if known {
		return need, nil
	}
	var p page[wirePrefix]
	r := request{method: http.MethodGet, path: "/api/ipam/prefixes/", query: url.Values{"limit": {"1"}, "depth": {"0"}}, tally: t,
		decode: func(b []byte) error { return json.Unmarshal(b, &p) }}
	resp, err := c.do(ctx, r)
	if err != nil {
		return false, err
	}
	if resp.status != http.StatusOK {
		return false, apiError(r, resp)
	}
	if len(p.Results) == 0 {
		return false, nil // nothing to tell by; ask again next time
	}
	need = p.Results[0].Locations == nil
	c.mu.Lock()
	c.m2mKnown, c.m2m = true, need
	c.mu.Unlock()
	return need, nil
}
