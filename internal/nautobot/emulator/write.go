package emulator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// body reads a JSON request body: one object, or a list for bulk writes.
// It answers the error itself and returns ok false when the body is not
// JSON.
func body(w http.ResponseWriter, q *request) (items []any, isList, ok bool) {
	mt, _, _ := mime.ParseMediaType(q.r.Header.Get("Content-Type"))
	if mt != "application/json" {
		writeDetail(w, http.StatusUnsupportedMediaType, q.version.String(), fmt.Sprintf("Unsupported media type %q in request.", q.r.Header.Get("Content-Type")))
		return nil, false, false
	}
	raw, err := io.ReadAll(q.r.Body)
	if err != nil {
		writeDetail(w, http.StatusBadRequest, q.version.String(), "could not read the request body")
		return nil, false, false
	}
	raw = bytes.TrimSpace(raw)
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		writeDetail(w, http.StatusBadRequest, q.version.String(), "JSON parse error - "+err.Error())
		return nil, false, false
	}
	if list, ok := v.([]any); ok {
		return list, true, true
	}
	return []any{v}, false, true
}

func asObject(v any) (map[string]any, errorDict) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errorDict{"non_field_errors": {fmt.Sprintf("Invalid data. Expected a dictionary, but got %s.", pyType(v))}}
	}
	return m, nil
}

func (h *Handler) decoder(t *table, raw map[string]any, q *request, create, partial bool) *decoder {
	return &decoder{s: h.st, raw: raw, partial: partial, create: create, ct: t.def.ct,
		legacy: !q.version.atLeast(2, 2), strictCF: h.cfg.strictCF, errs: errorDict{}}
}

// create handles POST of one object or a list (bulk create). Like
// Nautobot it validates every object against the state before the
// request, answering 400 with one error dict per object ({} for the valid
// ones) if any is invalid; then it saves them in order in one
// transaction. A save that fails on what an earlier object of the same
// request wrote (two objects with one name) fails the whole request
// with a 500, as the database's IntegrityError does in Nautobot.
func (h *Handler) create(w http.ResponseWriter, q *request, t *table) {
	items, isList, ok := body(w, q)
	if !ok {
		return
	}
	errs := make([]errorDict, len(items))
	recs := make([]*record, len(items))
	failed := false
	for i, raw := range items {
		recs[i], errs[i] = h.validateNew(t, raw, q)
		if errs[i].failure() {
			h.writeFailure(w, q, errs[i])
			return
		}
		failed = failed || len(errs[i]) > 0
	}
	if failed {
		if !isList {
			writeErrors(w, q, errs[0])
			return
		}
		writeErrorList(w, q, errs)
		return
	}
	h.st.begin(newChangeRequest(t.def.ct, false))
	for _, r := range recs {
		if e := h.save(t, r, nil); len(e) > 0 {
			h.st.rollback()
			h.writeFailure(w, q, e)
			return
		}
	}
	h.st.commit()
	h.respond(w, q, http.StatusCreated, recs, isList)
}

// validateNew decodes and validates one object of a create.
func (h *Handler) validateNew(t *table, raw any, q *request) (*record, errorDict) {
	m, e := asObject(raw)
	if e != nil {
		return nil, e
	}
	d := h.decoder(t, m, q, true, false)
	r := &record{ct: t.def.ct, cf: map[string]any{}}
	if rawID, ok := m["id"]; ok && rawID != nil {
		id, _ := rawID.(string)
		if uuid.Validate(id) != nil {
			d.errs.add("id", "Must be a valid UUID.")
		}
		r.id = strings.ToLower(id)
	}
	t.def.decode(d, r)
	h.unique(t, r, nil, d.errs)
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	return r, h.validate(t, r, nil)
}

// validate runs the model's checks on r (old is the stored version on
// update), in Django's order: the model's clean, then uniqueness
// including the primary key, all reported together; serializer-level
// checks (non_field_errors) stop earlier.
func (h *Handler) validate(t *table, r, old *record) errorDict {
	e := errorDict{}
	if t.def.check != nil {
		e = t.def.check(h.st, r, old)
	}
	if old == nil && r.id != "" && t.byID[r.id] != nil && len(e["non_field_errors"]) == 0 && !e.failure() {
		e.add("id", t.def.label+" with this Id already exists.")
	}
	return e
}

// save stores a validated r. What fails now is a 500: the model's own
// checks while saving, and, for a create, a clash with an object this
// request saved before (validated objects cannot clash otherwise).
func (h *Handler) save(t *table, r, old *record) errorDict {
	if t.def.saveCheck != nil {
		if e := t.def.saveCheck(h.st, r, old); len(e) > 0 {
			return validationFault(e)
		}
	}
	if old == nil {
		e := errorDict{}
		h.unique(t, r, nil, e)
		if len(e) == 0 {
			e = h.validate(t, r, nil)
		}
		if len(e) > 0 {
			return fault("IntegrityError", fmt.Sprintf("duplicate key value violates unique constraint \"%s_uniq\"\nDETAIL:  Key already exists.\n",
				strings.ReplaceAll(t.def.ct, ".", "_")))
		}
	}
	now := h.st.stamp()
	if old == nil {
		if r.id == "" {
			r.id = uuid.NewString()
		}
		r.created = now
		r.updated = now
		h.st.insert(r)
		h.st.logChange(actionCreate, r)
	} else {
		r.updated = now
		h.st.replace(old, r)
		r = old // replace keeps the stored pointer
	}
	if t.def.after != nil {
		if e := t.def.after(h.st, r, old); len(e) > 0 {
			return e
		}
	}
	if old != nil {
		// Logged after the side effects: a record's place in the log is
		// where its request first changed the object, and Nautobot unlinks
		// a prefix's old locations (logging it) before saving it.
		h.st.logChange(actionUpdate, r)
	}
	return nil
}

// unique applies DRF's UniqueValidator to the kind's unique field of r,
// the new state of old (nil on a create). The validator leaves out only
// the instance being updated: a create clashes with any object of the
// key, even one of the id the create names, which the model's check of
// the id would report had the serializer not stopped first.
func (h *Handler) unique(t *table, r, old *record, errs errorDict) {
	if t.def.uniqueField == "" || len(errs[t.def.uniqueField]) > 0 {
		return
	}
	if o := t.byKey[keyOf(r)]; o != nil && (old == nil || o.id != old.id) {
		errs.add(t.def.uniqueField, t.def.uniqueMsg)
	}
}

// updateOne applies a PATCH (partial) or PUT to r.
func (h *Handler) updateOne(t *table, r *record, m map[string]any, q *request, partial bool) errorDict {
	next := r.clone()
	d := h.decoder(t, m, q, false, partial)
	t.def.decode(d, next)
	h.unique(t, next, r, d.errs)
	if len(d.errs) > 0 {
		return d.errs
	}
	if e := h.validate(t, next, r); len(e) > 0 {
		return e
	}
	return h.save(t, next, r)
}

func (h *Handler) updateDetail(w http.ResponseWriter, q *request, t *table, r *record) {
	items, isList, ok := body(w, q)
	if !ok {
		return
	}
	if isList {
		writeErrors(w, q, errorDict{"non_field_errors": {"Invalid data. Expected a dictionary, but got list."}})
		return
	}
	m, e := asObject(items[0])
	if e == nil {
		h.st.begin(newChangeRequest(t.def.ct, true))
		if e = h.updateOne(t, r, m, q, q.r.Method == http.MethodPatch); len(e) > 0 {
			h.st.rollback()
		} else {
			h.st.commit()
		}
	}
	if e.failure() {
		h.writeFailure(w, q, e)
		return
	}
	if len(e) > 0 {
		writeErrors(w, q, e)
		return
	}
	h.respond(w, q, http.StatusOK, []*record{r}, false)
}

// bulkIDs validates a bulk PATCH or DELETE body as BulkOperationSerializer
// does, and returns the objects it names that exist, in the model's
// ordering. Unknown ids are skipped, as Nautobot filters the queryset by
// them.
func (h *Handler) bulkIDs(w http.ResponseWriter, q *request, t *table) ([]*record, map[string]map[string]any, bool) {
	items, isList, ok := body(w, q)
	if !ok {
		return nil, nil, false
	}
	if !isList {
		writeErrors(w, q, errorDict{"non_field_errors": {`Expected a list of items but got type "dict".`}})
		return nil, nil, false
	}
	errs := make([]errorDict, len(items))
	failed := false
	data := map[string]map[string]any{}
	var found []*record
	for i, raw := range items {
		m, e := asObject(raw)
		if e == nil {
			rawID, has := m["id"]
			id, _ := rawID.(string)
			switch {
			case !has:
				e = errorDict{"id": {"This field is required."}}
			case uuid.Validate(id) != nil:
				e = errorDict{"id": {"Must be a valid UUID."}}
			}
			id = strings.ToLower(id)
			if r := t.byID[id]; r != nil && e == nil && data[id] == nil {
				found = append(found, r)
			}
			delete(m, "id")
			data[id] = m
		}
		if e != nil {
			errs[i], failed = e, true
		}
	}
	if failed {
		writeErrorList(w, q, errs)
		return nil, nil, false
	}
	slices.SortFunc(found, func(a, b *record) int {
		switch {
		case t.def.less(h.st, a, b):
			return -1
		case t.def.less(h.st, b, a):
			return 1
		}
		return cmpString(a.id, b.id)
	})
	return found, data, true
}

// bulkUpdate handles PATCH/PUT of a list: all objects or none. Like
// Nautobot it stops at the first invalid object and answers its errors
// alone, without saying which object it was.
func (h *Handler) bulkUpdate(w http.ResponseWriter, q *request, t *table) {
	found, data, ok := h.bulkIDs(w, q, t)
	if !ok {
		return
	}
	h.st.begin(newChangeRequest(t.def.ct, false))
	for _, r := range found {
		if e := h.updateOne(t, r, data[r.id], q, q.r.Method == http.MethodPatch); len(e) > 0 {
			h.st.rollback()
			if e.failure() {
				h.writeFailure(w, q, e)
				return
			}
			writeErrors(w, q, e)
			return
		}
	}
	h.st.commit()
	h.respond(w, q, http.StatusOK, found, true)
}

func (h *Handler) bulkDelete(w http.ResponseWriter, q *request, t *table) {
	found, _, ok := h.bulkIDs(w, q, t)
	if !ok {
		return
	}
	h.st.begin(newChangeRequest(t.def.ct, false))
	for _, r := range found {
		if msg := h.deleteOne(r); msg != "" {
			h.st.rollback()
			writeDetail(w, http.StatusConflict, q.version.String(), msg)
			return
		}
	}
	h.st.commit()
	w.Header().Set("API-Version", q.version.String())
	w.WriteHeader(http.StatusNoContent)
}

func (h *Handler) deleteDetail(w http.ResponseWriter, q *request, t *table, r *record) {
	h.st.begin(newChangeRequest(t.def.ct, true))
	if msg := h.deleteOne(r); msg != "" {
		h.st.rollback()
		writeDetail(w, http.StatusConflict, q.version.String(), msg)
		return
	}
	h.st.commit()
	w.Header().Set("API-Version", q.version.String())
	w.WriteHeader(http.StatusNoContent)
}

// deleteOne deletes r, or returns the 409 message Nautobot gives when
// protected objects still depend on it.
func (h *Handler) deleteOne(r *record) string {
	var deps []*record
	if r.ct == ctPrefix {
		deps = h.st.releaseChildren(r)
	}
	if len(deps) == 0 && h.st.refs[r.id] > 0 {
		deps = h.dependents(r.id)
	}
	if len(deps) > 0 {
		parts := make([]string, len(deps))
		for i, d := range deps {
			parts[i] = fmt.Sprintf("%s (%s)", h.st.tables[d.ct].def.display(h.st, d), d.id)
		}
		slices.Sort(parts)
		return fmt.Sprintf("Unable to delete object. %d dependent objects were found: %s", len(deps), strings.Join(parts, ", "))
	}
	h.st.logChange(actionDelete, r)
	// A prefix's location assignments go with it, unlogged: Django logs
	// no cascade of a many-to-many link.
	for _, a := range append([]*record(nil), h.st.assignments[r.id]...) {
		h.st.remove(a)
	}
	h.st.remove(r)
	return ""
}

func (h *Handler) dependents(id string) []*record {
	var out []*record
	for _, t := range h.st.tables {
		for _, r := range t.byID {
			if slices.Contains(protecting(r), id) {
				out = append(out, r)
			}
		}
	}
	return out
}

func (h *Handler) respond(w http.ResponseWriter, q *request, status int, recs []*record, list bool) {
	e := h.encoder(q)
	e.write = true
	if list {
		e.w.open('[')
	}
	for _, r := range recs {
		e.record(r)
	}
	if list {
		e.w.close(']')
	}
	writeJSON(w, status, q.version.String(), e.w.b)
}

func writeErrors(w http.ResponseWriter, q *request, e errorDict) {
	raw, _ := json.Marshal(e)
	writeJSON(w, http.StatusBadRequest, q.version.String(), raw)
}

func writeErrorList(w http.ResponseWriter, q *request, errs []errorDict) {
	for i := range errs {
		if errs[i] == nil {
			errs[i] = errorDict{}
		}
	}
	raw, _ := json.Marshal(errs)
	writeJSON(w, http.StatusBadRequest, q.version.String(), raw)
}
