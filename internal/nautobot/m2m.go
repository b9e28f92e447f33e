package nautobot

import (
	"context"
	"errors"
	"net/url"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// sweepPrefixes reads prefixes with their locations. Nautobot 3.x leaves
// many-to-many fields out unless asked with exclude_m2m=false; 2.4
// includes them by default and takes the parameter too, so it is always
// sent (every supported server knows it: see minServer).
func (r *reading) sweepPrefixes(ctx context.Context, _ *Client, path string, q url.Values, _ *httpapi.Tally) ([]wirePrefix, error) {
	q2 := url.Values{"exclude_m2m": {"false"}}
	for k, v := range q {
		q2[k] = v
	}
	got, err := sweep[wirePrefix](ctx, r.c, path, q2, r.Tally)
	if err == nil && len(got) > 0 && got[0].Locations == nil {
		return nil, errors.New("nautobot leaves prefix locations out of its answers even with exclude_m2m=false")
	}
	return got, err
}
