package nautobottest

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
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
		if all(preds, c) {
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

// contentType is the catalog's entry for ct.
func (s *store) contentType(ct string) contentType {
	for _, c := range s.types {
		if c.name() == ct {
			return c
		}
	}
	app, model, _ := strings.Cut(ct, ".")
	return contentType{appLabel: app, model: model, verbose: model}
}

// changeFilters are ObjectChangeFilterSet's filters the emulator serves:
// exact values, and the time lookups a client follows the log with.
func changeFilters(s *store) map[string]func([]string) (func(*change) bool, string) {
	uuids := func(get func(*change) string) func([]string) (func(*change) bool, string) {
		return func(values []string) (func(*change) bool, string) {
			f, msg := fID()(s, values)
			if msg != "" {
				return nil, msg
			}
			return func(c *change) bool { return f(&record{id: get(c)}) }, ""
		}
	}
	exact := func(get func(*change) string) func([]string) (func(*change) bool, string) {
		return func(values []string) (func(*change) bool, string) {
			return func(c *change) bool { return slices.Contains(values, get(c)) }, ""
		}
	}
	return map[string]func([]string) (func(*change) bool, string){
		"id":                     uuids(func(c *change) string { return c.id }),
		"changed_object_id":      uuids(func(c *change) string { return c.objectID }),
		"request_id":             uuids(func(c *change) string { return c.requestID }),
		"user_name":              exact(func(*change) string { return userName }),
		"object_repr":            exact(func(c *change) string { return c.repr }),
		"action":                 fAction,
		"changed_object_type":    fChangedType,
		"changed_object_type_id": s.fChangedTypeID,
		"time":                   fTime(func(c, t time.Time) bool { return c.Equal(t) }),
		"time__gte":              fTime(func(c, t time.Time) bool { return !c.Before(t) }),
		"time__gt":               fTime(func(c, t time.Time) bool { return c.After(t) }),
		"time__lte":              fTime(func(c, t time.Time) bool { return !c.After(t) }),
		"time__lt":               fTime(func(c, t time.Time) bool { return c.Before(t) }),
		"q": func(values []string) (func(*change) bool, string) {
			return func(c *change) bool {
				for _, v := range values {
					v = strings.ToLower(strings.TrimSpace(v))
					if strings.Contains(userName, v) || strings.Contains(strings.ToLower(c.repr), v) {
						return true
					}
				}
				return false
			}, ""
		},
	}
}

func fAction(values []string) (func(*change) bool, string) {
	for _, v := range values {
		if actionLabels[v] == "" {
			return nil, invalidChoice(v)
		}
	}
	return func(c *change) bool { return slices.Contains(values, c.action) }, ""
}

// fChangedType is ContentTypeFilter: one "app.model", the last given,
// matched without regard to case; one that names no type matches nothing,
// an empty one filters nothing.
func fChangedType(values []string) (func(*change) bool, string) {
	want := strings.ToLower(values[len(values)-1])
	return func(c *change) bool { return want == "" || c.ct == want }, ""
}

// fChangedTypeID selects by content type id. On 3.x it is a multiple
// choice filter, so repeated ids are OR'd; on 2.4 it is a plain choice
// filter, which takes the last id given.
func (s *store) fChangedTypeID(values []string) (func(*change) bool, string) {
	line3 := s.version.atLeast(3, 0)
	if !line3 {
		values = values[len(values)-1:]
	}
	want := map[string]bool{}
	for _, v := range values {
		c, ok := s.contentTypeByID(v)
		_, err := strconv.Atoi(v)
		isInt := err == nil
		switch {
		case !ok && !line3:
			return nil, "Select a valid choice. That choice is not one of the available choices."
		case !ok && !isInt:
			return nil, "“" + v + "” is not a valid value."
		case !ok:
			return nil, invalidChoice(v)
		}
		want[c.name()] = true
	}
	return func(c *change) bool { return want[c.ct] }, ""
}

func (s *store) contentTypeByID(v string) (contentType, bool) {
	for _, c := range s.types {
		if strconv.Itoa(c.id) == v {
			return c, true
		}
	}
	return contentType{}, false
}

// fTime is a time lookup. Django's DateTimeFilter takes the last value
// given, and an empty one filters nothing; naive times are the server's
// zone, UTC.
func fTime(cmp func(changed, t time.Time) bool) func([]string) (func(*change) bool, string) {
	return func(values []string) (func(*change) bool, string) {
		v := values[len(values)-1]
		if v == "" {
			return func(*change) bool { return true }, ""
		}
		t, ok := parseFormTime(v)
		if !ok {
			return nil, "Enter a valid date/time."
		}
		return func(c *change) bool { return cmp(c.time, t) }, ""
	}
}

// formTimeLayouts are the forms Django's DateTimeField accepts: ISO 8601
// with T or a space, any fraction of a second, a zone or none, or a date.
var formTimeLayouts = []string{
	"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999", "2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02",
}

func parseFormTime(v string) (time.Time, bool) {
	v = strings.Replace(strings.TrimSpace(v), " ", "T", 1)
	for _, l := range formTimeLayouts {
		if t, err := time.ParseInLocation(l, v, time.UTC); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
