package emulator

import (
	"net/http"
	"strconv"
)

// listPage is the part of a list one request reads: results lo to hi of
// count, and the links to the pages before and after it.
type listPage struct {
	lo, hi     int
	count      int // as the answer reports it
	next, prev string
}

// page picks the page of n results the request's limit and offset ask
// for, as LimitOffsetPagination does; a fault may cut the links short or
// misreport the count.
func (h *Handler) page(q *request, n int) listPage {
	query := q.r.URL.Query()
	limit := h.limit(query)
	offset, err := strconv.Atoi(query.Get("offset"))
	if err != nil || offset < 0 {
		offset = 0
	}
	p := listPage{lo: min(offset, n), hi: n, count: n}
	if limit > 0 {
		p.hi = min(offset+limit, n)
		if offset+limit < n {
			p.next = h.pageURL(q, limit, offset+limit)
		}
		if offset > 0 {
			p.prev = h.pageURL(q, limit, max(offset-limit, 0))
		}
	}
	if p.lo > p.hi {
		p.lo = p.hi
	}
	return p
}

// write answers the page, results written by each.
func (p listPage) write(w http.ResponseWriter, q *request, jw *jw, each func()) {
	jw.open('{')
	jw.key("count")
	jw.int(int64(p.count))
	jw.key("next")
	jw.strOrNull(p.next)
	jw.key("previous")
	jw.strOrNull(p.prev)
	jw.key("results")
	jw.open('[')
	each()
	jw.close(']')
	jw.close('}')
	writeJSON(w, http.StatusOK, q.version.String(), jw.b)
}
