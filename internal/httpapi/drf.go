package httpapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ErrorMessage renders the error body of a Django REST framework API
// (Nautobot, NetBox): {"field": ["msg"]}, a list of those (one per object
// of a bulk write; the first with errors is rendered), or
// {"detail": "msg"}.
func ErrorMessage(body []byte) string {
	var list []map[string]any
	if json.Unmarshal(body, &list) == nil {
		for _, m := range list {
			if len(m) > 0 {
				return FieldMessages(m)
			}
		}
	}
	var m map[string]any
	if json.Unmarshal(body, &m) == nil && len(m) > 0 {
		return FieldMessages(m)
	}
	return Snippet(body)
}

// FieldMessages renders one object's errors, {"field": ["msg"]}, as
// "field: msg" parts in field order, or the detail alone.
func FieldMessages(m map[string]any) string {
	if d, ok := m["detail"].(string); ok && len(m) == 1 {
		return d
	}
	keys := slices.Sorted(maps.Keys(m))
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
