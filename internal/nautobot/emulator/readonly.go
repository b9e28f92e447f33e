package emulator

import (
	"net/http"
	"net/url"
)

// listFilter turns the values of one query parameter of a list that is
// not a record table (the change log, content types) into a predicate,
// or returns the message django-filter gives for a bad value.
type listFilter[T any] func(values []string) (func(T) bool, string)

// readOnly answers 405 to a write on a read-only endpoint and reports
// whether the request may go on.
func readOnly(w http.ResponseWriter, q *request) bool {
	if m := q.r.Method; m == http.MethodGet || m == http.MethodHead {
		return true
	}
	writeDetail(w, http.StatusMethodNotAllowed, q.version.String(), `Method "`+q.r.Method+`" not allowed.`)
	return false
}

// strictFilters builds the predicates of a query's filters, with
// "Unknown filter field" for any the filter set lacks, as strict
// filtering answers.
func strictFilters[T any](query url.Values, nonFilter func(string) bool, set map[string]listFilter[T]) ([]func(T) bool, errorDict) {
	errs := errorDict{}
	var preds []func(T) bool
	for p, values := range query {
		if nonFilter(p) {
			continue
		}
		f := set[p]
		if f == nil {
			errs.add(p, "Unknown filter field")
			continue
		}
		pred, msg := f(values)
		if msg != "" {
			errs.add(p, msg)
			continue
		}
		preds = append(preds, pred)
	}
	return preds, errs
}

func matchesAll[T any](preds []func(T) bool, v T) bool {
	for _, p := range preds {
		if !p(v) {
			return false
		}
	}
	return true
}
