package neutron

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// rangesPath is the collection as Neutron's API reference spells it. The
// server also routes "network-segment-ranges" (the extension registers its
// resource with dashes); both reach the same controller.
const rangesPath = "network_segment_ranges"

// RangeConfig says which site's ranges a RangeWriter handles and how ipsync
// marks the ranges it owns.
//
// The marker is a pair of Neutron tags: Tag, and "<OwnerField>=<owner>"
// naming the owner. Tags rather than a description or name prefix: they
// leave name (the range's key) and description (a spec field) to their
// owner, and operators rarely touch them. Neutron does not accept tags in
// the POST of a range, so a create is a POST followed by a tags PUT, and a
// create whose tagging fails is deleted again.
type RangeConfig struct {
	Site       string
	Tag        string // default "managed-by-ipsync"
	OwnerField string // default "ipsync_owner"
}

// Marker defaults, the same names ipsync uses in Nautobot.
const (
	DefaultTag        = "managed-by-ipsync"
	DefaultOwnerField = "ipsync_owner"
)

// RangeWriter lists and writes a site's network segment ranges. With List
// and Apply it is a reconcile target.
type RangeWriter struct {
	client *gophercloud.ServiceClient
	cfg    RangeConfig
	marker marker
	logger *slog.Logger
}

// NewRangeWriter writes ranges through r's connection. A nil logger discards.
func NewRangeWriter(r *Reader, cfg RangeConfig, logger *slog.Logger) *RangeWriter {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = logger.With("component", "neutron-ranges", "site", cfg.Site)
	return &RangeWriter{client: r.client, cfg: cfg, marker: newMarker(cfg.Tag, cfg.OwnerField, logger), logger: logger}
}

// List returns the site's ranges as resource.SegmentRange objects, with the
// owner their tags name, id and revision_number as version. Default ranges
// (Neutron's ML2 config, read-only through the API) are left out.
func (w *RangeWriter) List(ctx context.Context) ([]resource.Object, error) {
	ws, err := listAll[wireRange](ctx, w.client, rangesPath, url.Values{"fields": rangeFields}, DefaultPageSize, nil)
	if err != nil {
		return nil, err
	}
	var out []resource.Object
	for _, r := range ws {
		if r.Default {
			continue
		}
		out = append(out, w.object(r.segmentRange()))
	}
	return out, nil
}

func (w *RangeWriter) object(r SegmentRange) *resource.SegmentRange {
	return &resource.SegmentRange{
		M:               resource.Meta{Owner: w.owner(r), ID: r.ID, Version: strconv.Itoa(r.RevisionNumber)},
		Name:            r.Name,
		Site:            w.cfg.Site,
		NetworkType:     r.NetworkType,
		PhysicalNetwork: r.PhysicalNetwork,
		Minimum:         uint32(max(r.Minimum, 0)),
		Maximum:         uint32(max(r.Maximum, 0)),
		Shared:          r.Shared,
		Project:         r.ProjectID,
		Description:     r.Description,
	}
}

func (w *RangeWriter) owner(r SegmentRange) resource.Owner {
	return w.marker.owner(r.Tags, "segment range", r.ID)
}

// Server is "Neutron", for messages.
func (w *RangeWriter) Server() string { return "Neutron" }

// Apply writes the segment-range changes in order and returns how many it
// wrote. It stops at the first failure. Updates and deletes carry the
// planned revision (If-Match), so a range changed since the plan is not
// overwritten: the error wraps ErrMoved.
func (w *RangeWriter) Apply(ctx context.Context, changes []plan.Change) (int, error) {
	writes := 0
	for _, c := range changes {
		if !c.Action.Writes() {
			continue
		}
		if c.Key.Kind != resource.KindSegmentRange {
			return writes, fmt.Errorf("%s %s: neutron writes only segment ranges", c.Action, c.Key)
		}
		var err error
		switch c.Action {
		case plan.Create:
			err = w.create(ctx, c)
		case plan.Update, plan.Adopt:
			err = w.update(ctx, c)
		case plan.Delete:
			err = w.delete(ctx, c)
		}
		if err != nil {
			return writes, fmt.Errorf("%s %s: %w", c.Action, c.Key, err)
		}
		writes++
	}
	return writes, nil
}

func (w *RangeWriter) desired(c plan.Change) (*resource.SegmentRange, error) {
	d, ok := c.Desired.(*resource.SegmentRange)
	if !ok {
		return nil, fmt.Errorf("desired object is %T, want a segment range", c.Desired)
	}
	if d.Site != "" && d.Site != w.cfg.Site {
		return nil, fmt.Errorf("range is for site %q, this Neutron is site %q", d.Site, w.cfg.Site)
	}
	if err := checkOwner(d.M.Owner); err != nil {
		return nil, err
	}
	return d, nil
}

func current(c plan.Change) (*resource.SegmentRange, error) {
	cur, ok := c.Current.(*resource.SegmentRange)
	if !ok || cur.M.ID == "" {
		return nil, fmt.Errorf("current object %T has no Neutron id", c.Current)
	}
	return cur, nil
}

func (w *RangeWriter) create(ctx context.Context, c plan.Change) error {
	d, err := w.desired(c)
	if err != nil {
		return err
	}
	body := map[string]any{
		"name": d.Name, "network_type": d.NetworkType, "minimum": d.Minimum, "maximum": d.Maximum,
		"shared": d.Shared, "description": d.Description,
	}
	if d.PhysicalNetwork != "" {
		body["physical_network"] = d.PhysicalNetwork
	}
	if d.Project != "" {
		body["project_id"] = d.Project
	}
	var created struct {
		Range wireRange `json:"network_segment_range"`
	}
	_, err = w.client.Post(ctx, w.client.ServiceURL(rangesPath), map[string]any{"network_segment_range": body}, &created,
		&gophercloud.RequestOpts{OkCodes: []int{http.StatusCreated}})
	if err != nil {
		if refused(err) {
			return fmt.Errorf("create segment range: %w", err)
		}
		// The answer may have been lost after Neutron created the range
		// (a cut connection, a cancelled run). Range names are not unique
		// in Neutron, so a later attempt would not find it by key: it
		// would stay unmarked and look like someone else's forever.
		return w.undoLostRange(ctx, d, err)
	}
	id := created.Range.ID
	if err := w.marker.markNew(ctx, w.client, rangesPath, "segment range", id, d.M.Owner); err != nil {
		return err
	}
	w.logger.Info("created segment range", "range", d.Name, "id", id)
	return nil
}

// immutable are the fields Neutron refuses to change on an existing range.
var immutable = map[string]bool{"network_type": true, "physical_network": true, "shared": true, "project_id": true}

func (w *RangeWriter) update(ctx context.Context, c plan.Change) error {
	d, err := w.desired(c)
	if err != nil {
		return err
	}
	cur, err := current(c)
	if err != nil {
		return err
	}
	for _, f := range c.Fields {
		if immutable[f.Field] {
			return fmt.Errorf("neutron cannot change %s of a segment range (%q -> %q); give the range a new name so it is created anew and the old one deleted", f.Field, f.Old, f.New)
		}
	}
	// All mutable fields, even unchanged ones: an adopt without field
	// changes still needs a write that checks the revision.
	body := map[string]any{"name": d.Name, "minimum": d.Minimum, "maximum": d.Maximum, "description": d.Description}
	_, err = w.client.Put(ctx, w.client.ServiceURL(rangesPath, cur.M.ID), map[string]any{"network_segment_range": body}, nil,
		&gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}, MoreHeaders: ifMatch(cur.M)})
	if err != nil {
		return writeError("update segment range "+cur.M.ID, err)
	}
	if c.Action == plan.Adopt {
		if err := w.marker.markAdopted(ctx, w.client, rangesPath, "segment range", cur.M.ID, d.M.Owner); err != nil {
			return err
		}
	}
	w.logger.Info("updated segment range", "range", d.Name, "id", cur.M.ID, "action", c.Action.String())
	return nil
}

func (w *RangeWriter) delete(ctx context.Context, c plan.Change) error {
	cur, err := current(c)
	if err != nil {
		return err
	}
	_, err = w.client.Delete(ctx, w.client.ServiceURL(rangesPath, cur.M.ID),
		&gophercloud.RequestOpts{OkCodes: []int{http.StatusNoContent}, MoreHeaders: ifMatch(cur.M)})
	if gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		// Gone already: what the plan wanted, e.g. a retry after a crash.
		w.logger.Info("segment range already deleted", "range", cur.Name, "id", cur.M.ID)
		return nil
	}
	if err != nil {
		return writeError("delete segment range "+cur.M.ID, err)
	}
	w.logger.Info("deleted segment range", "range", cur.Name, "id", cur.M.ID)
	return nil
}
