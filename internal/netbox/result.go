package netbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// ApplyResult is what an Apply did.
type ApplyResult struct {
	// Written is the number of objects written.
	Written int
	// Counts counts the objects written, per kind and action.
	Counts map[resource.Kind]map[plan.Action]int
	// Writes and Reads count the HTTP requests sent, retries included.
	Writes int
	Reads  int
	// Errors are the changes NetBox refused; the others were written.
	Errors []*ObjectError
}

func (r *ApplyResult) count(k resource.Kind, a plan.Action, n int) {
	if n == 0 {
		return
	}
	if r.Counts[k] == nil {
		r.Counts[k] = map[plan.Action]int{}
	}
	r.Counts[k][a] += n
	r.Written += n
}

// err summarizes the refused changes, or is nil.
func (r ApplyResult) err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	errs := make([]error, len(r.Errors))
	for i, e := range r.Errors {
		errs[i] = e
	}
	return fmt.Errorf("netbox refused %d change(s): %w", len(r.Errors), errors.Join(errs...))
}

// ObjectError is one change NetBox refused, with its message.
type ObjectError struct {
	Key     resource.Key
	Action  plan.Action
	Message string
}

func (e *ObjectError) Error() string { return fmt.Sprintf("%s %s: %s", e.Action, e.Key, e.Message) }

// bulkErrors is NetBox's answer to a refused bulk write (4.7): the
// objects at fault, by their index in the request (creates, and entries
// that name no object) or by id (updates and deletes).
type bulkErrors struct {
	Detail string `json:"detail"`
	Errors []struct {
		Index  *int           `json:"index"`
		ID     *int           `json:"id"`
		Errors map[string]any `json:"errors"`
	} `json:"errors"`
}

// errorMessage renders an error body: {"field": ["msg"]} or
// {"detail": "msg"}.
func errorMessage(body []byte) string {
	var m map[string]any
	if json.Unmarshal(body, &m) == nil && len(m) > 0 {
		return fieldMessages(m)
	}
	return httpapi.Snippet(body)
}

func fieldMessages(m map[string]any) string {
	if d, ok := m["detail"].(string); ok && len(m) == 1 {
		return d
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		var msgs []string
		switch v := m[k].(type) {
		case []any:
			for _, x := range v {
				msgs = append(msgs, fmt.Sprint(x))
			}
		case map[string]any:
			msgs = append(msgs, fieldMessages(v))
		default:
			msgs = append(msgs, fmt.Sprint(v))
		}
		if k == "__all__" || k == "non_field_errors" {
			parts = append(parts, strings.Join(msgs, " "))
			continue
		}
		parts = append(parts, k+": "+strings.Join(msgs, " "))
	}
	return strings.Join(parts, "; ")
}
