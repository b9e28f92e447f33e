package neutron

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"

	"github.com/gophercloud/gophercloud/v2"
)

// record is a wire type that has a Neutron id, used as the page marker.
type record interface{ recordID() string }

// listAll reads every page of a collection (limit/marker, sorted by id) and
// fails as a whole if any page fails: a partial list must never look like a
// complete one.
//
// It follows the presence of Neutron's "next" link, not the page length, so
// a server that caps the limit (pagination_max_limit) is paged correctly,
// but builds the next URL itself from the last id: Neutron writes its links
// from the request's host and scheme, which are wrong behind a TLS proxy.
// (gophercloud's segments pager looks for links.next, which Neutron never
// sends, so it would stop after the first page.)
//
// When the marker record is deleted between two pages, Neutron silently
// starts again from the first record. listAll notices (a page must start
// after its marker), steps the marker back to the record before, and drops
// records it already has.
//
// It sets limit, sort and marker in query.
//
// onPage, when not nil, learns how many records each page added.
func listAll[W record](ctx context.Context, c *gophercloud.ServiceClient, collection string, query url.Values, pageSize int, onPage func(n int)) ([]W, error) {
	q := query
	q.Set("limit", strconv.Itoa(pageSize))
	q.Set("sort_key", "id")
	q.Set("sort_dir", "asc") // Neutron wants a sort_dir for every sort_key
	q.Del("marker")
	var (
		all      []W
		back     int // how far the marker stepped back from the last record
		restarts int
	)
	for page := 1; ; page++ {
		u := c.ServiceURL(collection) + "?" + q.Encode()
		var body map[string]json.RawMessage
		_, err := c.Get(ctx, u, &body, &gophercloud.RequestOpts{OkCodes: []int{200}})
		if err != nil {
			return nil, fmt.Errorf("list %s (page %d): %w", collection, page, err)
		}
		raw, ok := body[collection]
		if !ok {
			return nil, fmt.Errorf("list %s (page %d): response has no %q list", collection, page, collection)
		}
		items, err := decodeRecords[W](raw)
		if err != nil {
			return nil, fmt.Errorf("list %s (page %d): %w", collection, page, err)
		}
		more, err := hasNext(body[collection+"_links"])
		if err != nil {
			return nil, fmt.Errorf("list %s (page %d): links: %w", collection, page, err)
		}
		if marker := q.Get("marker"); marker != "" && len(items) > 0 && items[0].recordID() <= marker {
			// The marker is gone: retry from the record before it.
			if restarts++; restarts > maxRestarts || back >= len(all) {
				return nil, fmt.Errorf("list %s (page %d): records keep vanishing under the page marker", collection, page)
			}
			back++
			if i := len(all) - 1 - back; i >= 0 {
				q.Set("marker", all[i].recordID())
			} else {
				q.Del("marker")
			}
			continue
		}
		back = 0
		before := len(all)
		for _, it := range items {
			if len(all) == 0 || it.recordID() > all[len(all)-1].recordID() {
				all = append(all, it)
			}
		}
		if onPage != nil {
			onPage(len(all) - before)
		}
		if !more || len(items) == 0 {
			return all, nil
		}
		last := items[len(items)-1].recordID()
		if last == "" || last == q.Get("marker") {
			return nil, fmt.Errorf("list %s (page %d): paging does not advance past %q", collection, page, last)
		}
		q.Set("marker", last)
	}
}

// maxRestarts bounds how often a list steps its marker back.
const maxRestarts = 10

func hasNext(raw json.RawMessage) (bool, error) {
	if len(raw) == 0 {
		return false, nil
	}
	var links []gophercloud.Link
	if err := json.Unmarshal(raw, &links); err != nil {
		return false, err
	}
	for _, l := range links {
		if l.Rel == "next" {
			return true, nil
		}
	}
	return false, nil
}
