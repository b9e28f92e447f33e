package events

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrMalformed marks a message that is not an oslo notification at all; the
// consumer drops such messages instead of redelivering them forever.
var ErrMalformed = errors.New("malformed notification")

// envelope is oslo's 2.0 message envelope; Message holds the notification
// JSON-encoded as a string.
type envelope struct {
	Version *string `json:"oslo.version"`
	Message *string `json:"oslo.message"`
}

// notification is the oslo notification body, shared by the 1.0 (bare) and
// 2.0 (enveloped) formats. Context keys (_context_*) are ignored.
type notification struct {
	MessageID string          `json:"message_id"`
	EventType string          `json:"event_type"`
	Priority  string          `json:"priority"`
	Timestamp string          `json:"timestamp"`
	Payload   json.RawMessage `json:"payload"`
}

// item is the part of a Neutron resource body ipsync needs.
type item struct {
	ID        string `json:"id"`
	NetworkID string `json:"network_id"`
}

// ParseNotification decodes one message body from the notification exchange.
// It accepts oslo's 2.0 envelope and the bare 1.0 format. Notifications about
// resources or phases ipsync does not track yield (nil, nil). A tracked
// notification whose payload names no resource still yields an Event, with no
// ids, so that the change leads to a full reconcile rather than being lost.
// Errors wrap ErrMalformed.
func ParseNotification(body []byte) ([]Event, error) {
	n, err := decodeNotification(body)
	if err != nil {
		return nil, err
	}
	resource, action, ok := splitEventType(n.EventType)
	if !ok {
		return nil, nil
	}
	var ids, networks []string
	switch resource {
	case Router, RouterInterface, FloatingIP:
		var relevant bool
		ids, networks, relevant, err = addressNetworks(resource, action, n.Payload)
		if err == nil && !relevant {
			return nil, nil
		}
	default:
		ids, networks, err = payloadIDs(resource, n.Payload)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s payload: %w", ErrMalformed, n.EventType, err)
	}
	return []Event{{
		Type:       n.EventType,
		Resource:   resource,
		Action:     action,
		IDs:        ids,
		NetworkIDs: networks,
		Timestamp:  parseTimestamp(n.Timestamp),
		MessageID:  n.MessageID,
	}}, nil
}

func decodeNotification(body []byte) (notification, error) {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return notification{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	inner := body
	if env.Message != nil {
		if env.Version == nil || !strings.HasPrefix(*env.Version, "2.") {
			return notification{}, fmt.Errorf("%w: unsupported oslo.version %s", ErrMalformed, versionText(env.Version))
		}
		inner = []byte(*env.Message)
	}
	var n notification
	if err := json.Unmarshal(inner, &n); err != nil {
		return notification{}, fmt.Errorf("%w: oslo.message: %w", ErrMalformed, err)
	}
	if n.EventType == "" {
		return notification{}, fmt.Errorf("%w: no event_type", ErrMalformed)
	}
	return n, nil
}

func versionText(v *string) string {
	if v == nil {
		return "(missing)"
	}
	return fmt.Sprintf("%q", *v)
}

// splitEventType parses "<resource>.<action>.end" for the tracked resources
// and actions, and the router interface notifications (addresses.go).
// Resource names contain underscores but no dots.
func splitEventType(t string) (resource, action string, ok bool) {
	if action, ok := routerInterfaceEvent(t); ok {
		return RouterInterface, action, true
	}
	rest, found := strings.CutSuffix(t, ".end")
	if !found {
		return "", "", false
	}
	resource, action, found = strings.Cut(rest, ".")
	if !found {
		return "", "", false
	}
	if _, tracked := collection(resource); !tracked && resource != Router && resource != FloatingIP {
		return "", "", false
	}
	switch action {
	case Create, Update, Delete:
		return resource, action, true
	}
	return "", "", false
}

// payloadIDs reads the resource ids and their networks from the payload
// shapes Neutron's API controller sends:
//
//	create.end, update.end:  {"<resource>": {...}}
//	bulk create.end:         {"<collection>": [{...}, ...]}
//	delete.end:              {"<resource>_id": "...", "<resource>": {...}}
//
// (delete.end carried only the id before Neutron added the body.)
func payloadIDs(resource string, raw json.RawMessage) (ids, networks []string, err error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, nil, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, nil, err
	}
	var items []item
	if b, ok := fields[resource]; ok && !isNull(b) {
		var it item
		if err := json.Unmarshal(b, &it); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", resource, err)
		}
		items = append(items, it)
	}
	plural, _ := collection(resource)
	if b, ok := fields[plural]; ok && !isNull(b) {
		var its []item
		if err := json.Unmarshal(b, &its); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", plural, err)
		}
		items = append(items, its...)
	}
	if b, ok := fields[resource+"_id"]; ok && !isNull(b) {
		var id string
		if err := json.Unmarshal(b, &id); err != nil {
			return nil, nil, fmt.Errorf("%s_id: %w", resource, err)
		}
		if len(items) == 1 && items[0].ID == "" {
			items[0].ID = id
		} else if len(items) == 0 {
			items = append(items, item{ID: id})
		}
	}
	ids, networks = collectIDs(resource, items)
	return ids, networks, nil
}

// collectIDs de-duplicates ids in payload order. Networks are reported only
// when every item has one, so callers never mistake a partial list for a
// complete one.
func collectIDs(resource string, items []item) (ids, networks []string) {
	attributed := resource != NetworkSegmentRange
	for _, it := range items {
		if it.ID != "" {
			ids = appendUnique(ids, it.ID)
		}
		network := it.NetworkID
		if resource == Network {
			network = it.ID
		}
		if network == "" {
			attributed = false
			continue
		}
		networks = appendUnique(networks, network)
	}
	if !attributed {
		networks = nil
	}
	return ids, networks
}

func appendUnique(list []string, s string) []string {
	for _, have := range list {
		if have == s {
			return list
		}
	}
	return append(list, s)
}

func isNull(b json.RawMessage) bool {
	return bytes.Equal(bytes.TrimSpace(b), []byte("null"))
}

// parseTimestamp reads oslo's timestamp, Python's str(datetime) of a naive
// UTC time ("2024-05-06 07:08:09.123456", no fraction when it is zero), and
// RFC 3339 for other publishers. Unreadable times are zero.
func parseTimestamp(s string) time.Time {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", time.RFC3339Nano} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}
