package emulator

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

const pathContentTypes = "extras/content-types"

// contentTypeFilters are ContentTypeFilterSet's filters the emulator
// serves.
func contentTypeFilters() map[string]listFilter[contentType] {
	exact := func(get func(contentType) string) listFilter[contentType] {
		return func(values []string) (func(contentType) bool, string) {
			return func(c contentType) bool { return slices.Contains(values, get(c)) }, ""
		}
	}
	return map[string]listFilter[contentType]{
		"app_label": exact(func(c contentType) string { return c.appLabel }),
		"model":     exact(func(c contentType) string { return c.model }),
		"id": func(values []string) (func(contentType) bool, string) {
			ids := map[int]bool{}
			for _, v := range values {
				n, err := strconv.Atoi(v)
				if err != nil {
					return nil, "Enter a whole number."
				}
				ids[n] = true
			}
			return func(c contentType) bool { return ids[c.id] }, ""
		},
		"q": func(values []string) (func(contentType) bool, string) {
			return func(c contentType) bool {
				for _, v := range values {
					v = strings.ToLower(strings.TrimSpace(v))
					if strings.Contains(c.appLabel, v) || strings.Contains(c.model, v) {
						return true
					}
				}
				return false
			}, ""
		},
	}
}

// contentTypes answers /api/extras/content-types/ and its detail views,
// which are read-only.
func (h *Handler) contentTypes(w http.ResponseWriter, q *request, id string) {
	if !readOnly(w, q) {
		return
	}
	e := h.encoder(q)
	if id != "" {
		for _, c := range h.st.types {
			if strconv.Itoa(c.id) == id {
				h.encodeContentType(e, c)
				writeJSON(w, http.StatusOK, q.version.String(), e.w.b)
				return
			}
		}
		writeDetail(w, http.StatusNotFound, q.version.String(), "No ContentType matches the given query.")
		return
	}
	preds, errs := strictFilters(q.r.URL.Query(), h.nonFilter, contentTypeFilters())
	if len(errs) > 0 {
		writeErrors(w, q, errs)
		return
	}
	var matched []contentType
	for _, c := range h.st.types {
		if matchesAll(preds, c) {
			matched = append(matched, c)
		}
	}
	pg := h.page(q, len(matched))
	pg.write(w, q, &e.w, func() {
		for _, c := range matched[pg.lo:pg.hi] {
			h.encodeContentType(e, c)
		}
	})
}

func (h *Handler) encodeContentType(e *encoder, c contentType) {
	url := e.base + "/api/" + pathContentTypes + "/" + strconv.Itoa(c.id) + "/"
	e.w.open('{')
	e.w.key("id")
	e.w.int(int64(c.id))
	e.field("object_type", "contenttypes.contenttype")
	e.field("display", c.display(h.st.version.atLeast(3, 0)))
	e.field("url", url)
	e.field("natural_slug", c.naturalSlug())
	e.field("app_label", c.appLabel)
	e.field("model", c.model)
	e.w.close('}')
}

// unversioned answers without the API-Version header: Nautobot's content
// types view is not one of its versioned API views, on either line.
type unversioned struct{ http.ResponseWriter }

func (u unversioned) WriteHeader(status int) {
	u.Header().Del("API-Version")
	u.ResponseWriter.WriteHeader(status)
}
