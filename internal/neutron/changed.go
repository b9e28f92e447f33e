package neutron

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/ipsync/ipsync/internal/parallel"
)

// ErrNoChangeFilter is a Neutron refusing the changed_since filter. Its
// timestamp extension defines the filter, but filter validation (on by
// default, as in the Neutron 21 tested here) refuses it as an unknown
// attribute; only a Neutron with filter_validation = false takes it.
var ErrNoChangeFilter = errors.New("neutron refuses the changed_since filter (it does with filter_validation on, its default)")

// ChangedNetworks returns the ids of the networks of which a network,
// subnet or port record was updated at or after since, by Neutron's clock
// in whole seconds. Deleted records are not listed, nor are segments:
// Neutron's segments refuse changed_since even without filter validation
// ("not supported for filtering"), and a segment added to a network is
// seen with its subnet's or port's change. Notifications, or a whole
// read, tell of the rest.
func (r *Reader) ChangedNetworks(ctx context.Context, since time.Time) ([]string, error) {
	filter := url.Values{"changed_since": {since.UTC().Format("2006-01-02T15:04:05Z")}}
	var (
		mu  sync.Mutex
		ids []string
	)
	add := func(got []string, err error) error {
		mu.Lock()
		defer mu.Unlock()
		ids = append(ids, got...)
		return err
	}
	jobs := []func(context.Context) error{
		func(ctx context.Context) error {
			got, err := list(ctx, r, "networks", filter, []string{"id"}, func(w wireNetwork) string { return w.ID })
			return add(got, err)
		},
		func(ctx context.Context) error {
			got, err := list(ctx, r, "subnets", filter, []string{"id", "network_id"}, func(w wireSubnet) string { return w.NetworkID })
			return add(got, err)
		},
		func(ctx context.Context) error {
			got, err := list(ctx, r, "ports", filter, []string{"id", "network_id"}, func(w wirePort) string { return w.NetworkID })
			return add(got, err)
		},
	}
	if err := parallel.Run(ctx, r.cfg.Concurrency, jobs); err != nil {
		var code gophercloud.ErrUnexpectedResponseCode
		if errors.As(err, &code) && code.Actual == http.StatusBadRequest && strings.Contains(string(code.Body), "changed_since") {
			return nil, ErrNoChangeFilter
		}
		return nil, fmt.Errorf("read neutron changes since %s: %w", since.UTC().Format(time.RFC3339), err)
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}
