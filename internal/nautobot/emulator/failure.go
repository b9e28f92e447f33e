package emulator

import (
	"net/http"
	"sort"
	"strings"
)

// Answers other than a 400 with field errors travel in an errorDict under
// reserved keys, so that every check keeps one return type.
const (
	faultKey        = "\x00fault"        // [exception, message]
	preconditionKey = "\x00precondition" // [detail]
)

// fault is an exception Nautobot does not turn into a 400 (an
// IntegrityError, a ValidationError raised while saving): its API
// answers 500 for the whole request.
func fault(exception, message string) errorDict {
	return errorDict{faultKey: {exception, message}}
}

// precondition is a 412, which Nautobot answers when an object cannot be
// shown or written in the form the request uses.
func precondition(detail string) errorDict { return errorDict{preconditionKey: {detail}} }

// failure reports whether e is a fault or a precondition rather than
// field errors.
func (e errorDict) failure() bool { return len(e[faultKey]) > 0 || len(e[preconditionKey]) > 0 }

// writeFailure answers a fault as Nautobot's exception handler does (JSON,
// without an API-Version header) or a precondition as a 412.
func (h *Handler) writeFailure(w http.ResponseWriter, q *request, e errorDict) {
	if p := e[preconditionKey]; len(p) == 1 {
		writeDetail(w, http.StatusPreconditionFailed, q.version.String(), p[0])
		return
	}
	f := e[faultKey]
	b := []byte(`{"error": `)
	b = appendQuoted(b, f[1])
	b = append(b, `, "exception": `...)
	b = appendQuoted(b, f[0])
	b = append(b, `, "nautobot_version": `...)
	b = appendQuoted(b, h.cfg.version+".0")
	b = append(b, `, "python_version": "3.12.0"}`...)
	writeJSON(w, http.StatusInternalServerError, "", b)
}

// validationFault is the 500 for a Django ValidationError raised while
// saving; its text is the Python repr of the error dict.
func validationFault(e errorDict) errorDict {
	keys := make([]string, 0, len(e))
	for k := range e {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		msgs := make([]string, len(e[k]))
		for j, m := range e[k] {
			msgs[j] = pyStr(m)
		}
		parts[i] = pyStr(k) + ": [" + strings.Join(msgs, ", ") + "]"
	}
	return fault("ValidationError", "{"+strings.Join(parts, ", ")+"}")
}

// pyStr is a string as Python's repr writes it: single quotes unless the
// string holds one and no double quote.
func pyStr(s string) string {
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"`
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
