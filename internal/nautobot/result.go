package nautobot

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// errorMessage renders a DRF error body: {"field": ["msg"]}, a list of
// those (one per object of a bulk write), or {"detail": "msg"}.
func errorMessage(body []byte) string {
	var list []map[string]any
	if json.Unmarshal(body, &list) == nil {
		for _, m := range list {
			if len(m) > 0 {
				return fieldMessages(m)
			}
		}
	}
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
		default:
			msgs = append(msgs, fmt.Sprint(v))
		}
		parts = append(parts, k+": "+strings.Join(msgs, " "))
	}
	return strings.Join(parts, "; ")
}

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
