package lease

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// TagFields returns what one server requires of a new tag called name
// besides its name, description and colour.
type TagFields func(name string) map[string]any

// NautobotTags: Nautobot wants the content types a tag may be put on, at
// least one. The lease tag is put on nothing, so any will do.
func NautobotTags(string) map[string]any {
	return map[string]any{"content_types": []string{"ipam.namespace"}}
}

// NetBoxTags: NetBox wants a slug, unique like the name. It is made from
// the name and a hash of it, so that two lease names never share a slug
// (a shared slug would refuse the second lease's tag forever). The lease
// tag is limited to VRFs to keep it out of the tag pickers of other
// objects.
func NetBoxTags(name string) map[string]any {
	return map[string]any{"slug": slug(name), "object_types": []string{"ipam.vrf"}}
}

// maxSlug is the length NetBox allows a tag's slug.
const maxSlug = 100

// slug is name in the letters, digits, underscores and hyphens a NetBox
// slug allows, followed by a hash of name.
func slug(name string) string {
	sum := sha256.Sum256([]byte(name))
	suffix := "-" + hex.EncodeToString(sum[:4])
	readable := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' {
			return unicode.ToLower(r)
		}
		return '-'
	}, name)
	if room := maxSlug - len(suffix); len(readable) > room {
		readable = strings.ToValidUTF8(readable[:room], "")
	}
	return readable + suffix
}

// objectID is an object's id as either server writes it: a UUID string
// (Nautobot) or an integer (NetBox).
type objectID string

func (id *objectID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*id = objectID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("object id %s: want a string or a number", b)
	}
	*id = objectID(n.String())
	return nil
}
