package neutron

import (
	"context"
	"errors"
	"fmt"
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

// undoLost deletes the range a create whose answer was lost may have made:
// unmarked ranges with the desired name and bounds. The plan saw no range
// of that name, so such a range is this create's.
func (w *RangeWriter) undoLost(ctx context.Context, d *resource.SegmentRange, cause error) error {
	uctx, cancel := undoContext(ctx)
	defer cancel()
	ws, err := listAll[wireRange](uctx, w.client, rangesPath, url.Values{"name": {d.Name}, "fields": rangeFields}, DefaultPageSize, nil)
	if err != nil {
		return fmt.Errorf("create segment range: %w (and looking for a range it may have made failed: %v; check Neutron for an unmarked range %q)", cause, err, d.Name)
	}
	var undone []string
	for _, r := range ws {
		sr := r.segmentRange()
		if sr.Default || sr.Name != d.Name || len(sr.Tags) > 0 || sr.NetworkType != d.NetworkType || sr.PhysicalNetwork != d.PhysicalNetwork ||
			sr.Minimum != int(d.Minimum) || sr.Maximum != int(d.Maximum) {
			continue
		}
		if _, err := w.client.Delete(uctx, w.client.ServiceURL(rangesPath, sr.ID), nil); err != nil && !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
			return fmt.Errorf("create segment range: %w (it was made as %s, and deleting it again failed: %v; delete it in Neutron or adopt it)", cause, sr.ID, err)
		}
		undone = append(undone, sr.ID)
	}
	if len(undone) > 0 {
		w.logger.Warn("deleted a segment range whose create was cut off", "range", d.Name, "ids", undone)
		return fmt.Errorf("create segment range: %w (Neutron had made it as %v: deleted it again)", cause, undone)
	}
	return fmt.Errorf("create segment range: %w", cause)
}
