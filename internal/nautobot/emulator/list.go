package emulator

import (
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// nonFilterParams are the query parameters that are not filters
// (Nautobot's NON_FILTER_QUERY_PARAMS; exclude_m2m only from 2.4 on).
func (h *Handler) nonFilter(p string) bool {
	switch p {
	case "api_version", "depth", "format", "include", "limit", "offset", "sort", "brief":
		return true
	case "exclude_m2m":
		v, _ := parseVersion(h.cfg.version)
		return v.atLeast(2, 4)
	}
	return false
}

func (h *Handler) encoder(q *request) *encoder {
	sv, _ := parseVersion(h.cfg.version)
	exclude := sv.atLeast(3, 0)
	if v := q.r.URL.Query().Get("exclude_m2m"); v != "" && sv.atLeast(2, 4) {
		exclude = isTruthy(v)
	}
	return &encoder{s: h.st, base: q.base, legacy: !q.version.atLeast(2, 2), excludeM2M: exclude}
}

func isTruthy(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on", "y", "t":
		return true
	}
	return false
}

// list answers a GET on a list endpoint: strict filtering, then a page of
// the model's ordering.
func (h *Handler) list(w http.ResponseWriter, q *request, t *table) {
	query := q.r.URL.Query()
	preds, errs := h.filters(t, query)
	if len(errs) > 0 {
		writeErrors(w, q, errs)
		return
	}
	matched := h.matching(t, query, preds)
	if h.cfg.shuffleTies {
		matched = shuffleTies(h.st, t, matched)
	}

	e := h.encoder(q)
	pg := h.page(q, len(matched))
	pg.write(w, q, &e.w, func() {
		for _, r := range matched[pg.lo:pg.hi] {
			e.record(r)
		}
	})
}

// limit follows OptionalLimitOffsetPagination: no or a bad limit gives
// PAGINATE_COUNT; limit=0 gives MAX_PAGE_SIZE, or everything when there is
// no maximum; larger limits are capped. 0 here means no limit.
func (h *Handler) limit(query url.Values) int {
	n, err := strconv.Atoi(query.Get("limit"))
	if err != nil || n < 0 {
		return h.cfg.pageSize
	}
	if h.cfg.maxPageSize > 0 && (n == 0 || n > h.cfg.maxPageSize) {
		return h.cfg.maxPageSize
	}
	return n
}

func (h *Handler) pageURL(q *request, limit, offset int) string {
	v := q.r.URL.Query()
	v.Set("limit", strconv.Itoa(limit))
	if offset > 0 {
		v.Set("offset", strconv.Itoa(offset))
	} else {
		v.Del("offset")
	}
	return q.base + q.r.URL.Path + "?" + v.Encode()
}

// filters builds the predicates of the query's filter parameters, with
// "Unknown filter field" for parameters the filter set does not have.
func (h *Handler) filters(t *table, query url.Values) ([]func(*record) bool, errorDict) {
	errs := errorDict{}
	var preds []func(*record) bool
	for p, values := range query {
		if h.nonFilter(p) {
			continue
		}
		if key, ok := strings.CutPrefix(p, "cf_"); ok {
			if def := findCF(h.st.customFields(t.def.ct), key); def != nil {
				if def.filterLogic == "disabled" {
					// Nautobot makes no filter of such a field.
					errs.add(p, "Unknown filter field")
					continue
				}
				pred, _ := customFieldFilter(def, values)
				preds = append(preds, pred)
				continue
			}
		}
		f := t.def.filters[p]
		if f == nil {
			errs.add(p, "Unknown filter field")
			continue
		}
		pred, msg := f(h.st, values)
		if msg != "" {
			errs.add(p, msg)
			continue
		}
		preds = append(preds, pred)
	}
	return preds, errs
}

// matching returns the records passing preds, in order. The result is
// cached until the next write, so that paging through n matches costs
// one scan, not one per page.
func (h *Handler) matching(t *table, query url.Values, preds []func(*record) bool) []*record {
	all := h.st.sorted(t)
	if len(preds) == 0 {
		return all
	}
	var keys []string
	for p, values := range query {
		if !h.nonFilter(p) {
			keys = append(keys, p+"="+strings.Join(values, "\x00"))
		}
	}
	slices.Sort(keys)
	key := t.def.ct + "?" + strings.Join(keys, "&")
	if got, ok := h.st.cache[key]; ok {
		return got
	}
	var out []*record
next:
	for _, r := range all {
		for _, p := range preds {
			if !p(r) {
				continue next
			}
		}
		out = append(out, r)
	}
	h.st.cache[key] = out
	return out
}

// shuffleTies returns recs with each run of objects that tie in the
// model's ordering in a random order.
func shuffleTies(s *store, t *table, recs []*record) []*record {
	out := slices.Clone(recs)
	for lo := 0; lo < len(out); {
		hi := lo + 1
		for hi < len(out) && !t.def.less(s, out[lo], out[hi]) && !t.def.less(s, out[hi], out[lo]) {
			hi++
		}
		run := out[lo:hi]
		rand.Shuffle(len(run), func(i, j int) { run[i], run[j] = run[j], run[i] })
		lo = hi
	}
	return out
}
