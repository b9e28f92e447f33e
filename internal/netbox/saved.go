package netbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
)

// ETag is the entity tag NetBox gives an object of the version (its
// last_updated as read): weak, from the same instant as Python's
// isoformat writes it in UTC, the zone the database keeps. The JSON
// carries the instant in NetBox's TIME_ZONE ("+01:00" in Berlin, "Z" in
// UTC), the ETag always "+00:00"; microseconds, six digits, only when
// there are some.
func ETag(version string) string {
	t, err := time.Parse(time.RFC3339Nano, version)
	if err != nil {
		return `W/"` + version + `"` // not a timestamp: as NetBox gave it
	}
	t = t.UTC()
	s := t.Format("2006-01-02T15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return `W/"` + s + `+00:00"`
}

// sendOne writes one update or delete with If-Match: the version the
// plan saw (or the one its interim write left). NetBox compares it with
// the object's under a row lock, so an object changed since is refused
// (412) and left as it is.
func (a *applier) sendOne(ctx context.Context, ep endpoint, method string, it item, rep *report) error {
	version, interim := a.versions.get(it.Change.Key)
	if !interim {
		version = it.Change.Current.Meta().Version
	}
	if version == "" {
		rep.Failed(it, "the plan holds no netbox version of it, so it cannot be written only if unchanged; re-plan")
		return nil
	}
	raw, err := json.Marshal(it.Body)
	if err != nil {
		return err
	}
	var got written
	maybeSent := false
	r := httpapi.Request{Method: method, Path: ep.path + it.ID + "/", Tally: a.t,
		Header: http.Header{"If-Match": {ETag(version)}}, Answer500: true, Retries500: retries500,
		Body: func(_ context.Context, _ int, sent bool) ([]byte, bool, error) {
			maybeSent = maybeSent || sent
			if method == http.MethodDelete {
				return nil, false, nil
			}
			return raw, false, nil
		},
		Decode: func(b []byte) error {
			if method == http.MethodDelete {
				return nil
			}
			return json.Unmarshal(b, &got)
		}}
	resp, err := a.c.api.Do(ctx, r)
	if err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	switch {
	case resp.Status >= 200 && resp.Status < 300:
		if it.Aux {
			etag := resp.Header.Get("ETag")
			a.versions.set(it.Change.Key, strings.TrimSuffix(strings.TrimPrefix(etag, `W/"`), `"`))
			return nil
		}
		if method != http.MethodDelete {
			if _, err := a.check(ep, method, []item{it}, []written{got}); err != nil {
				return err
			}
		}
		rep.Done(it)
	case resp.Status == http.StatusPreconditionFailed:
		msg := "changed in netbox since the plan was made; re-plan and review the change"
		if maybeSent {
			msg = "changed in netbox since the plan was made, or by an attempt of this write whose answer was lost; re-plan and review the change"
		}
		rep.Failed(it, msg)
	case resp.Status == http.StatusNotFound && method == http.MethodDelete && maybeSent:
		rep.Done(it) // an attempt whose answer was lost deleted it
	case resp.Status == http.StatusNotFound:
		rep.Failed(it, "not found in netbox; it was deleted since the plan was made")
	case resp.Status == http.StatusInternalServerError:
		rep.Failed(it, "netbox failed on it (HTTP 500): "+httpapi.Snippet(resp.Body))
	case resp.Status >= 400 && resp.Status < 500:
		rep.Failed(it, httpapi.ErrorMessage(resp.Body))
	default:
		return fmt.Errorf("apply: %w", r.Error(resp))
	}
	return nil
}

// versions are the versions objects have after an interim write.
type versions struct {
	mu sync.Mutex
	m  map[resource.Key]string
}

func (v *versions) get(k resource.Key) (string, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	s, ok := v.m[k]
	return s, ok
}

func (v *versions) set(k resource.Key, s string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.m[k] = s
}
