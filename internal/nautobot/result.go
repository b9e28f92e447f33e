package nautobot

import (
	"encoding/json"
	"strings"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// serverErrorMessage renders the body of an HTTP 500. Nautobot's API
// answers {"error": "...", "exception": "IntegrityError", ...}; the
// error of a ValidationError is the dict of its messages.
func serverErrorMessage(body []byte) string {
	var e struct {
		Error     string `json:"error"`
		Exception string `json:"exception"`
	}
	msg := httpapi.Snippet(body)
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		msg = strings.Join(strings.Fields(e.Error), " ")
		if e.Exception != "" {
			msg = e.Exception + ": " + msg
		}
	}
	return "nautobot failed on it (HTTP 500): " + msg
}

// perItem reads a bulk create's 400 body: one error dict per object.
func perItem(body []byte, n int) ([]map[string]any, bool) {
	var list []map[string]any
	if err := json.Unmarshal(body, &list); err != nil || len(list) != n {
		return nil, false
	}
	return list, true
}
