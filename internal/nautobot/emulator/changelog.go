package emulator

import (
	"strings"
	"time"

	"github.com/google/uuid"
)

// Change actions, as ObjectChange.action stores them.
const (
	actionCreate = "create"
	actionUpdate = "update"
	actionDelete = "delete"
)

// change is one record of the change log (Nautobot's ObjectChange).
type change struct {
	id        string
	time      time.Time
	action    string
	ct        string // the changed object's type
	objectID  string
	repr      string // str() of the object when it changed
	requestID string
	detail    string // change_context_detail: the API view that made it
	// data is the object as it was after the change (before it, for a
	// delete); a copy, so later writes leave it alone.
	data *record
}

// changeRequest is the API request a transaction runs for. Nautobot keeps
// one record per object and request: a second change of an object in the
// same request (a prefix saved, then its locations set) refreshes the
// first record instead of adding one.
type changeRequest struct {
	id     string
	view   string // the view's url name without "-list"/"-detail": "ipam-api:vlan"
	detail bool   // a detail view (one object by id) rather than the list view
	byObj  map[string]*change
}

// newChangeRequest is the change context of a write to the endpoint of
// type ct, on one object (detail) or on the list.
func newChangeRequest(ct string, detail bool) *changeRequest {
	app, model, _ := strings.Cut(ct, ".")
	view := app + "-api:" + model
	if app == "nautobot_bgp_models" {
		view = "plugins-api:nautobot_bgp_models-api:" + model
	}
	return &changeRequest{id: uuid.NewString(), view: view, detail: detail, byObj: map[string]*change{}}
}

func (c *changeRequest) contextDetail() string {
	if c.detail {
		return c.view + "-detail"
	}
	return c.view + "-list"
}

// logChange records that r was created, updated or deleted by the
// request the store's transaction runs for, with the undo that takes the
// record back on rollback: the log is written in the same transaction as
// the change, so a failed request leaves no record. Writes outside a
// request (seeding) are not logged, as Nautobot logs only changes made
// with a change context.
func (s *store) logChange(action string, r *record) {
	req := s.req
	if req == nil {
		return
	}
	if r.ct == ctPrefixLoc {
		// Django logs a many-to-many change as an update of both ends,
		// never the row that links them.
		for _, end := range []*record{s.get(ctLocation, r.location), s.get(ctPrefix, r.prefix)} {
			if end != nil {
				s.logChange(actionUpdate, end)
			}
		}
		return
	}
	if c := req.byObj[r.id]; c != nil && c.action != actionDelete && action != actionDelete {
		prev := c.data
		c.data = r.clone()
		s.undo = append(s.undo, func() { c.data = prev })
		return
	}
	c := &change{id: uuid.NewString(), time: s.stamp(), action: action, ct: r.ct, objectID: r.id,
		repr: s.repr(r), requestID: req.id, detail: req.contextDetail(), data: r.clone()}
	req.byObj[r.id] = c
	s.changes = append(s.changes, c)
	n := len(s.changes) - 1
	s.undo = append(s.undo, func() {
		s.changes = s.changes[:n]
		delete(req.byObj, r.id)
	})
}

// repr is str() of r, which object_repr keeps: the display, except that a
// prefix's leaves out its namespace.
func (s *store) repr(r *record) string {
	if r.ct == ctPrefix {
		return r.net.String()
	}
	return s.tables[r.ct].def.display(s, r)
}
