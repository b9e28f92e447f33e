package emulator

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

const pathObjectChanges = "extras/object-changes"

// actionLabels are ObjectChangeActionChoices' labels.
var actionLabels = map[string]string{actionCreate: "Created", actionUpdate: "Updated", actionDelete: "Deleted"}

// objectChanges answers /api/extras/object-changes/ and its detail
// views, which are read-only. The list is newest first unless sort asks
// for time or id; another sort is ignored, as Nautobot ignores it.
func (h *Handler) objectChanges(w http.ResponseWriter, q *request, id string) {
	if !readOnly(w, q) {
		return
	}
	e := h.encoder(q)
	if id != "" {
		for _, c := range h.st.changes {
			if c.id == id {
				h.encodeChange(e, c)
				writeJSON(w, http.StatusOK, q.version.String(), e.w.b)
				return
			}
		}
		writeDetail(w, http.StatusNotFound, q.version.String(), "No ObjectChange matches the given query.")
		return
	}
	query := q.r.URL.Query()
	preds, errs := strictFilters(query, h.nonFilter, changeFilters(h.st))
	if len(errs) > 0 {
		writeErrors(w, q, errs)
		return
	}
	matched := h.matchingChanges(query, preds)
	pg := h.page(q, len(matched))
	pg.write(w, q, &e.w, func() {
		for _, c := range matched[pg.lo:pg.hi] {
			h.encodeChange(e, c)
		}
	})
}

// matchingChanges are the changes passing preds, in the order sort asks
// for. They are kept until the next write, so that reading n pages of
// the log costs one scan, not n.
func (h *Handler) matchingChanges(query url.Values, preds []func(*change) bool) []*change {
	var keys []string
	for p, values := range query {
		if !h.nonFilter(p) || p == "sort" {
			keys = append(keys, p+"="+strings.Join(values, "\x00"))
		}
	}
	slices.Sort(keys)
	key := strings.Join(keys, "&")
	if got, ok := h.st.changeCache[key]; ok {
		return got
	}
	var matched []*change
	for _, c := range h.st.changes {
		if matchesAll(preds, c) {
			matched = append(matched, c)
		}
	}
	sortChanges(matched, query.Get("sort"))
	h.st.changeCache[key] = matched
	return matched
}

// sortChanges orders changes, oldest first as logged, by the sort
// parameter.
func sortChanges(cs []*change, sort string) {
	switch sort {
	case "time":
	case "id":
		slices.SortFunc(cs, func(a, b *change) int { return strings.Compare(a.id, b.id) })
	case "-id":
		slices.SortFunc(cs, func(a, b *change) int { return strings.Compare(b.id, a.id) })
	default: // "-time", the model's ordering
		slices.Reverse(cs)
	}
}

// encodeChange writes one record in ObjectChangeSerializer's fields and
// order. Both object_data and object_data_v2 hold the object as the API
// shows it at depth 0, with relative urls; Nautobot's object_data is a
// flatter form and its object_data_v2 nests related objects.
func (h *Handler) encodeChange(e *encoder, c *change) {
	url := e.base + "/api/" + pathObjectChanges + "/" + c.id + "/"
	ct := h.st.contentType(c.ct)
	e.w.open('{')
	e.field("id", c.id)
	e.field("object_type", "extras.objectchange")
	e.field("display", ct.display(h.st.version.atLeast(3, 0))+" "+c.repr+" "+strings.ToLower(actionLabels[c.action])+" by "+userName)
	e.field("url", url)
	e.field("natural_slug", naturalSlug(c.id, c.id))
	e.w.key("action")
	e.w.open('{')
	e.field("value", c.action)
	e.field("label", actionLabels[c.action])
	e.w.close('}')
	e.field("changed_object_type", c.ct)
	e.w.key("related_object_type")
	e.w.null()
	e.w.key("changed_object")
	if h.st.get(c.ct, c.objectID) != nil {
		e.refValue(c.ct, c.objectID)
	} else {
		e.w.null()
	}
	e.field("time", c.time.Format(timeFormat))
	e.field("user_name", userName)
	e.field("request_id", c.requestID)
	e.field("changed_object_id", c.objectID)
	e.field("change_context", "web")
	e.field("change_context_detail", c.detail)
	e.w.key("related_object_id")
	e.w.null()
	e.field("object_repr", c.repr)
	data := &encoder{s: h.st, excludeM2M: false}
	data.record(c.data)
	e.w.key("object_data")
	e.w.sep()
	e.w.b = append(e.w.b, data.w.b...)
	e.w.key("object_data_v2")
	e.w.sep()
	e.w.b = append(e.w.b, data.w.b...)
	e.w.key("user")
	e.w.open('{')
	e.field("id", h.st.userID)
	e.field("object_type", "users.user")
	e.field("url", e.base+"/api/users/users/"+h.st.userID+"/")
	e.w.close('}')
	e.w.close('}')
}

// userName is the user every token belongs to.
const userName = "admin"
