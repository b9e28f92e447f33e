package netbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// A reviewed change on NetBox goes through two plugins: netbox-branching
// (a branch: a copy of main that writes land in, merged later) and
// netbox-change-control (a change request on the branch that people
// approve, with checks a tool reports, gating the merge). What follows is
// their REST API as 1.2 and 0.6 serve it.

const (
	branchesPath = "/api/plugins/branching/branches/"
	changesPath  = "/api/plugins/branching/changes/"
	requestsPath = "/api/plugins/change-control/change-requests/"
	checksPath   = "/api/plugins/change-control/checks/"
)

// Branch is a netbox-branching branch.
type Branch struct {
	ID          int
	Name        string
	Description string
	// SchemaID is what X-NetBox-Branch takes (InBranch), not the name.
	SchemaID string
	// Status: new, provisioning, ready, syncing, merging, merged,
	// archived, failed, ...
	Status string
	// Owner is the user id of who made it: the change request's
	// requester, since change control does not default it to the caller.
	Owner int
}

// Open reports whether the branch may still be merged.
func (b Branch) Open() bool {
	switch b.Status {
	case "merged", "archived", "failed", "reverting":
		return false
	}
	return true
}

type wireBranch struct {
	ID          int    `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	SchemaID    string `json:"schema_id"`
	Status      struct {
		Value string `json:"value"`
	} `json:"status"`
	Owner struct {
		ID int `json:"id"`
	} `json:"owner"`
}

func (w wireBranch) branch() Branch {
	return Branch{ID: w.ID, Name: w.Name, Description: w.Description, SchemaID: w.SchemaID, Status: w.Status.Value, Owner: w.Owner.ID}
}

// ErrNoBranching says the server answers no branching API.
var ErrNoBranching = errors.New("this NetBox has no netbox-branching and netbox-change-control plugins: install both (NetBox 4.7: netboxlabs-netbox-branching 1.2, netbox-change-control 0.6) for apply --review")

// CreateBranch makes a branch; it is provisioned in the background
// (WaitBranch).
func (c *Client) CreateBranch(ctx context.Context, name, description string) (Branch, error) {
	var w wireBranch
	_, err := c.Call(ctx, http.MethodPost, branchesPath, nil, map[string]string{"name": name, "description": description}, &w)
	if notFound(err) {
		return Branch{}, ErrNoBranching
	}
	if err != nil {
		return Branch{}, fmt.Errorf("create branch %s: %w", name, err)
	}
	return w.branch(), nil
}

// BranchesNamed lists the branches whose names start with prefix.
func (c *Client) BranchesNamed(ctx context.Context, prefix string) ([]Branch, error) {
	var page struct {
		Results []wireBranch `json:"results"`
	}
	// The branch list ignores ?fields=; q matches names by substring.
	_, err := c.Call(ctx, http.MethodGet, branchesPath, url.Values{"q": {prefix}, "limit": {"1000"}}, nil, &page)
	if notFound(err) {
		return nil, ErrNoBranching
	}
	if err != nil {
		return nil, fmt.Errorf("list branches: %w", err)
	}
	var out []Branch
	for _, w := range page.Results {
		if strings.HasPrefix(w.Name, prefix) {
			out = append(out, w.branch())
		}
	}
	return out, nil
}

// WaitBranch waits until the branch is ready for writes (provisioned, or
// synced), polling every interval; a failed branch is an error.
func (c *Client) WaitBranch(ctx context.Context, id int, interval time.Duration) (Branch, error) {
	for {
		var w wireBranch
		if _, err := c.Call(ctx, http.MethodGet, branchesPath+strconv.Itoa(id)+"/", nil, nil, &w); err != nil {
			return Branch{}, fmt.Errorf("branch %d: %w", id, err)
		}
		switch b := w.branch(); b.Status {
		case "ready":
			return b, nil
		case "failed", "merged", "archived":
			return b, fmt.Errorf("branch %s is %s, not ready; see its jobs in NetBox", b.Name, b.Status)
		}
		select {
		case <-ctx.Done():
			return Branch{}, fmt.Errorf("waiting for branch %d: %w", id, ctx.Err())
		case <-time.After(interval):
		}
	}
}

// DeleteBranch drops a branch and what was written in it.
func (c *Client) DeleteBranch(ctx context.Context, id int) error {
	if _, err := c.Call(ctx, http.MethodDelete, branchesPath+strconv.Itoa(id)+"/", nil, nil, nil); err != nil {
		return fmt.Errorf("delete branch %d: %w", id, err)
	}
	return nil
}

// ChangeRequest is a netbox-change-control change request.
type ChangeRequest struct {
	ID     int    `json:"id"`
	Branch *int   `json:"branch"`
	Title  string `json:"title"`
	Ref    string `json:"ref"`
	// Status: draft, needs-review, approved, rejected, completed,
	// abandoned.
	Status             string `json:"status"`
	Approved           bool   `json:"approved"`
	ReadyToMerge       bool   `json:"ready_to_merge"`
	MergeBlockedReason string `json:"merge_blocked_reason"`
	HasConflicts       bool   `json:"has_conflicts"`
}

// OpenChangeRequest opens a change request for a branch and submits it
// for review. The requester is the branch's owner: the token's user.
func (c *Client) OpenChangeRequest(ctx context.Context, b Branch, title, ref, comments string) (ChangeRequest, error) {
	var cr ChangeRequest
	body := map[string]any{"branch": b.ID, "title": title, "requester": b.Owner, "ref": ref, "comments": comments}
	if _, err := c.Call(ctx, http.MethodPost, requestsPath, nil, body, &cr); err != nil {
		return cr, fmt.Errorf("open a change request for branch %s: %w", b.Name, err)
	}
	if _, err := c.Call(ctx, http.MethodPost, requestsPath+strconv.Itoa(cr.ID)+"/submit/", nil, map[string]any{}, &cr); err != nil {
		return cr, fmt.Errorf("submit change request %d: %w", cr.ID, err)
	}
	return cr, nil
}

// ChangeRequestOf is the change request of a branch, if it has one.
func (c *Client) ChangeRequestOf(ctx context.Context, branchID int) (ChangeRequest, bool, error) {
	var page struct {
		Results []ChangeRequest `json:"results"`
	}
	if _, err := c.Call(ctx, http.MethodGet, requestsPath, url.Values{"branch_id": {strconv.Itoa(branchID)}}, nil, &page); err != nil {
		return ChangeRequest{}, false, fmt.Errorf("change request of branch %d: %w", branchID, err)
	}
	if len(page.Results) == 0 {
		return ChangeRequest{}, false, nil
	}
	return page.Results[0], true, nil
}

// AbandonChangeRequest closes a change request unmerged.
func (c *Client) AbandonChangeRequest(ctx context.Context, id int) error {
	if _, err := c.Call(ctx, http.MethodPost, requestsPath+strconv.Itoa(id)+"/abandon/", nil, map[string]any{}, nil); err != nil {
		return fmt.Errorf("abandon change request %d: %w", id, err)
	}
	return nil
}

// ChangeRequestURL is the page a reviewer opens.
func (c *Client) ChangeRequestURL(id int) string {
	return strings.TrimRight(c.cfg.URL, "/") + "/plugins/change-control/change-requests/" + strconv.Itoa(id) + "/"
}

// ReportCheck sets the result of the check named name on a change request
// (status success, failure, ...). Change control makes a check's row when
// a policy or its settings require it, and a tool can only report on it:
// reported is false when no policy asks for the check.
func (c *Client) ReportCheck(ctx context.Context, crID int, name, status, summary string) (reported bool, err error) {
	var page struct {
		Results []struct {
			ID int `json:"id"`
		} `json:"results"`
	}
	q := url.Values{"change_request_id": {strconv.Itoa(crID)}, "name": {name}}
	if _, err := c.Call(ctx, http.MethodGet, checksPath, q, nil, &page); err != nil {
		return false, fmt.Errorf("check %s of change request %d: %w", name, crID, err)
	}
	if len(page.Results) == 0 {
		return false, nil
	}
	body := map[string]string{"status": status, "summary": summary}
	if _, err := c.Call(ctx, http.MethodPatch, checksPath+strconv.Itoa(page.Results[0].ID)+"/", nil, body, nil); err != nil {
		return false, fmt.Errorf("report check %s of change request %d: %w", name, crID, err)
	}
	return true, nil
}

// Conflict is a field a branch changed that main changed too since the
// branch was made.
type Conflict struct {
	ObjectType string
	ObjectID   int
	Object     string
	Fields     []string
}

// Conflicts lists what a branch changed that main changed meanwhile:
// netbox-branching detects them at main's write, field by field.
func (c *Client) Conflicts(ctx context.Context, branchID int) ([]Conflict, error) {
	var page struct {
		Results []struct {
			ObjectType string   `json:"object_type"`
			ObjectID   int      `json:"object_id"`
			ObjectRepr string   `json:"object_repr"`
			Conflicts  []string `json:"conflicts"`
		} `json:"results"`
	}
	q := url.Values{"branch_id": {strconv.Itoa(branchID)}, "has_conflicts": {"true"}, "limit": {"1000"}}
	if _, err := c.Call(ctx, http.MethodGet, changesPath, q, nil, &page); err != nil {
		return nil, fmt.Errorf("conflicts of branch %d: %w", branchID, err)
	}
	var out []Conflict
	for _, r := range page.Results {
		if len(r.Conflicts) > 0 {
			out = append(out, Conflict{ObjectType: r.ObjectType, ObjectID: r.ObjectID, Object: r.ObjectRepr, Fields: r.Conflicts})
		}
	}
	return out, nil
}

func notFound(err error) bool {
	var apiErr *httpapi.APIError
	return errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound
}
