package neutron

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/ipsync/ipsync/internal/resource"
)

// undoTimeout bounds the clean-up after a create failed half way. It runs
// after the run's own context may be gone (SIGTERM, a lost lease), so it
// must end on its own, and soon: a stopping agent waits for it.
const undoTimeout = 15 * time.Second

// undoContext outlives ctx's cancellation but not undoTimeout.
func undoContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
}

// refused reports whether Neutron answered a write with a client error: it
// wrote nothing, so there is nothing to undo.
func refused(err error) bool {
	var code gophercloud.ErrUnexpectedResponseCode
	if errors.As(err, &code) {
		return code.Actual >= 400 && code.Actual < 500 && code.Actual != http.StatusRequestTimeout
	}
	return false
}

// deleteLost deletes the objects of collection named name that match, the
// ones a create whose answer was lost may have made (the plan saw none
// such, so they are that create's), and returns their ids.
func deleteLost[W record](ctx context.Context, c *gophercloud.ServiceClient, collection, name string, fields []string, match func(W) bool) ([]string, error) {
	ws, err := listAll[W](ctx, c, collection, url.Values{"name": {name}, "fields": fields}, DefaultPageSize, nil)
	if err != nil {
		return nil, fmt.Errorf("looking for what it may have made failed: %w", err)
	}
	var undone []string
	for _, r := range ws {
		if !match(r) {
			continue
		}
		if _, err := c.Delete(ctx, c.ServiceURL(collection, r.recordID()), nil); err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return undone, fmt.Errorf("it was made as %s, and deleting it again failed: %w", r.recordID(), err)
		}
		undone = append(undone, r.recordID())
	}
	return undone, nil
}

// undoLost undoes a create of what whose answer was lost (cause).
func undoLost[W record](ctx context.Context, c *gophercloud.ServiceClient, logger *slog.Logger, what, collection, name string, fields []string, match func(W) bool, cause error) error {
	uctx, cancel := undoContext(ctx)
	defer cancel()
	undone, err := deleteLost(uctx, c, collection, name, fields, match)
	if err != nil {
		return fmt.Errorf("create %s: %w (and %v; check Neutron for an unmarked %s %q, delete it or adopt it)", what, cause, err, what, name)
	}
	if len(undone) > 0 {
		logger.Warn("deleted a "+what+" whose create was cut off", "name", name, "ids", undone)
		return fmt.Errorf("create %s: %w (Neutron had made it as %v: deleted it again)", what, cause, undone)
	}
	return fmt.Errorf("create %s: %w", what, cause)
}

// undoLostRange deletes the range a create whose answer was lost may have
// made: unmarked ranges with the desired name and bounds.
func (w *RangeWriter) undoLostRange(ctx context.Context, d *resource.SegmentRange, cause error) error {
	return undoLost(ctx, w.client, w.logger, "segment range", rangesPath, d.Name, rangeFields, func(r wireRange) bool {
		sr := r.segmentRange()
		return !sr.Default && sr.Name == d.Name && len(sr.Tags) == 0 && sr.NetworkType == d.NetworkType && sr.PhysicalNetwork == d.PhysicalNetwork &&
			sr.Minimum == int(d.Minimum) && sr.Maximum == int(d.Maximum)
	}, cause)
}
