package resource

import (
	"encoding/json"
	"fmt"
)

// MarshalText writes ranges in Nautobot's "100-199,300" form.
func (r VIDRanges) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText parses the form MarshalText writes.
func (r *VIDRanges) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*r = nil
		return nil
	}
	v, err := ParseVIDRanges(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Decode reads an object of kind k from the JSON Object's concrete types
// produce.
func Decode(k Kind, raw json.RawMessage) (Object, error) {
	o, err := New(k)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, o); err != nil {
		return nil, fmt.Errorf("decode %s: %w", k, err)
	}
	return o, nil
}
