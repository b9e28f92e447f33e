package cli

import (
	"fmt"

	"github.com/ipsync/ipsync/internal/bulkwrite"
	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
)

// perObjectFailure reports a saved plan applied object by object that did
// not all go through. When every change refused is one whose object
// changed since the plan (r.Changed), the plan was stale for those alone: a
// refusal (exit 3), the rest written. Anything else failed (exit 1).
func (e *env) perObjectFailure(err error, written int, j *job, r *reconcile.Result) error {
	var refused []*bulkwrite.ObjectError
	if j.refused != nil {
		refused = j.refused(err)
	}
	changed := map[resource.Key]bool{}
	for _, k := range r.Changed {
		changed[k] = true
	}
	stale, after := 0, 0
	for _, oe := range refused {
		if changed[oe.Key] {
			stale++
		}
	}
	// A change not sent because it needs one of those (a prefix on a
	// refused VLAN) is part of that refusal too.
	for grew := true; grew; {
		grew = false
		for _, oe := range refused {
			if !changed[oe.Key] && oe.After != (resource.Key{}) && changed[oe.After] {
				changed[oe.Key], grew = true, true
				after++
			}
		}
	}
	if stale == 0 || stale+after != len(refused) || countLeaves(err) != len(refused) {
		return fmt.Errorf("%w (%s written; run plan to see what is left)", err, plural.Of(written, "object"))
	}
	fmt.Fprintf(e.stderr, "%v\n", err)
	one := stale == 1
	needing := ""
	if after > 0 {
		needing = fmt.Sprintf(", and %s not sent because %s", plural.Of(after, "change"), pick(after == 1, "it needs one of them", "they need them"))
	}
	fmt.Fprintf(e.stderr, "applied in part: %s written to %s; %s refused because %s changed in %s since the plan was made, and left as %s there%s; the rest of the plan was written; make a new plan to see %s as %s now\n",
		plural.Of(written, "object"), j.targetID, plural.Of(stale, "change"), pick(one, "its object", "their objects"),
		j.server, pick(one, "it is", "they are"), needing, pick(one, "it", "them"), pick(one, "it is", "they are"))
	return status(ExitRefused)
}

func pick(one bool, singular, many string) string {
	if one {
		return singular
	}
	return many
}

// countLeaves counts the errors in err's tree that wrap none.
func countLeaves(err error) int {
	n := 0
	walk(err, func(e error) {
		switch e.(type) {
		case interface{ Unwrap() []error }, interface{ Unwrap() error }:
		default:
			n++
		}
	})
	return n
}

// walk calls fn on err and every error it wraps, through errors.Join too.
func walk(err error, fn func(error)) {
	if err == nil {
		return
	}
	fn(err)
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			walk(e, fn)
		}
	case interface{ Unwrap() error }:
		walk(u.Unwrap(), fn)
	}
}
