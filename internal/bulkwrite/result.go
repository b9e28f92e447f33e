package bulkwrite

import (
	"errors"
	"fmt"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// Result is what an Apply did.
type Result struct {
	// Written is the number of objects written.
	Written int
	// Counts counts the objects written, per kind and action.
	Counts map[resource.Kind]map[plan.Action]int
	// Writes and Reads count the HTTP requests sent, retries included.
	Writes int
	Reads  int
	// Errors are the changes the server refused, or that were not sent
	// because something they need was refused; the others were written.
	Errors []*ObjectError
}

func (r *Result) count(k resource.Kind, a plan.Action) {
	if r.Counts[k] == nil {
		r.Counts[k] = map[plan.Action]int{}
	}
	r.Counts[k][a]++
	r.Written++
}

// err summarizes the refused changes, or is nil.
func (r Result) err(server string) error {
	if len(r.Errors) == 0 {
		return nil
	}
	errs := make([]error, len(r.Errors))
	for i, e := range r.Errors {
		errs[i] = e
	}
	return fmt.Errorf("%s refused %d change(s): %w", server, len(r.Errors), errors.Join(errs...))
}

// ObjectError is one change that was not written, with why.
type ObjectError struct {
	Key     resource.Key
	Action  plan.Action
	Message string
	// After, when set, is the refused change this one needed (an object
	// it refers to, its parent prefix): it was not sent for that alone.
	After resource.Key
}

func (e *ObjectError) Error() string { return fmt.Sprintf("%s %s: %s", e.Action, e.Key, e.Message) }
