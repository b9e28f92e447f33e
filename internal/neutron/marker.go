package neutron

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/ipsync/ipsync/internal/resource"
)

// ErrMoved marks a write refused because the object changed or vanished in
// Neutron after the plan was made (a stale If-Match revision).
var ErrMoved = errors.New("changed in Neutron since the plan")

// marker is how ipsync marks the Neutron objects it owns, the same for
// every kind that takes tags: tag, and "<ownerField>=<owner>" naming the
// owner. Neutron takes no tags in a create, so a create is a POST followed
// by a tags PUT, and a create whose tagging fails is deleted again.
type marker struct {
	tag, ownerField string
	logger          *slog.Logger
}

func newMarker(tag, ownerField string, logger *slog.Logger) marker {
	if tag == "" {
		tag = DefaultTag
	}
	if ownerField == "" {
		ownerField = DefaultOwnerField
	}
	return marker{tag: tag, ownerField: ownerField, logger: logger}
}

// owner is the owner tags name, "" for an unmarked object or one whose
// owner tag is malformed (someone else's then).
func (m marker) owner(tags []string, what, id string) resource.Owner {
	prefix := m.ownerField + "="
	for _, t := range tags {
		if v, ok := strings.CutPrefix(t, prefix); ok {
			o, err := resource.ParseOwner(v)
			if err != nil {
				m.logger.Warn(what+" has a malformed owner tag; treating it as unmarked", "id", id, "tag", t)
				return ""
			}
			return o
		}
	}
	return ""
}

func (m marker) tags(o resource.Owner) []string {
	return []string{m.tag, m.ownerField + "=" + string(o)}
}

// checkOwner refuses an owner that cannot be a Neutron tag.
func checkOwner(o resource.Owner) error {
	if _, err := resource.ParseOwner(string(o)); err != nil {
		return fmt.Errorf("marker: %w", err)
	}
	// A tag travels in a URL path when it is added to an existing object.
	if strings.ContainsAny(string(o), "/,") {
		return fmt.Errorf("owner %q: Neutron tags of ipsync must not contain '/' or ','", o)
	}
	return nil
}

// markNew tags the object a create just made at collection/id. An
// unmarked object would later look like someone else's, so one whose
// tagging fails is deleted again, even when the run was cancelled in
// between.
func (m marker) markNew(ctx context.Context, c *gophercloud.ServiceClient, collection, what, id string, o resource.Owner) error {
	_, err := c.Put(ctx, c.ServiceURL(collection, id, "tags"), map[string]any{"tags": m.tags(o)}, nil,
		&gophercloud.RequestOpts{OkCodes: []int{http.StatusOK}})
	if err == nil {
		return nil
	}
	uctx, cancel := undoContext(ctx)
	defer cancel()
	if _, derr := c.Delete(uctx, c.ServiceURL(collection, id), nil); derr != nil && !gophercloud.ResponseCodeIs(derr, http.StatusNotFound) {
		return fmt.Errorf("tag new %s %s: %w (and deleting it again failed: %v; delete it in Neutron or adopt it)", what, id, err, derr)
	}
	return fmt.Errorf("tag new %s %s (deleted it again): %w", what, id, err)
}

// markAdopted adds the marker one tag at a time, which keeps the tags
// someone else put on the object instead of replacing them.
func (m marker) markAdopted(ctx context.Context, c *gophercloud.ServiceClient, collection, what, id string, o resource.Owner) error {
	for _, t := range m.tags(o) {
		_, err := c.Put(ctx, c.ServiceURL(collection, id, "tags", url.PathEscape(t)), nil, nil,
			&gophercloud.RequestOpts{OkCodes: []int{http.StatusCreated}})
		if err != nil {
			return fmt.Errorf("mark adopted %s %s: %w", what, id, err)
		}
	}
	return nil
}

// ifMatch makes a write fail if the object's revision is no longer the
// one the plan saw.
func ifMatch(m resource.Meta) map[string]string {
	if m.Version == "" {
		return nil
	}
	return map[string]string{"If-Match": "revision_number=" + m.Version}
}

// writeError wraps a failed update or delete, naming a stale revision or a
// vanished object ErrMoved.
func writeError(what string, err error) error {
	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusPreconditionFailed):
		return fmt.Errorf("%s: %w (%w)", what, ErrMoved, err)
	case gophercloud.ResponseCodeIs(err, http.StatusNotFound):
		return fmt.Errorf("%s: %w: it no longer exists (%w)", what, ErrMoved, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
