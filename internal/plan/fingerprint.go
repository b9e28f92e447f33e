package plan

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ipsync/ipsync/internal/resource"
)

// fingerprintPrefix names the hash, so that a fingerprint says how it was
// made and a later scheme can be told apart from this one.
const fingerprintPrefix = "sha256:"

// Fingerprint identifies what applying p would write: its owner and
// policy, and every write with its fields old -> new. A reviewer who
// approved a plan with this fingerprint approved exactly these writes.
//
// It leaves out what writes nothing or depends on where the plan was made:
// noops, counts, leaks, refusals and the target's URL (the review job may
// reach the server by another name than the reconciler in its cluster).
// The changes are taken in a sorted order of their own, so the fingerprint
// does not depend on how the planner ordered them.
func (p *Plan) Fingerprint() string {
	type entry struct {
		Action  string               `json:"a"`
		Kind    resource.Kind        `json:"k"`
		Key     string               `json:"n"`
		Fields  []resource.FieldDiff `json:"f,omitempty"`
		Interim []resource.FieldDiff `json:"i,omitempty"`
	}
	var entries []entry
	for _, c := range p.Changes {
		if !c.Action.Writes() {
			continue
		}
		entries = append(entries, entry{Action: c.Action.String(), Kind: c.Key.Kind, Key: c.Key.Name,
			Fields: sortedFields(c.Fields), Interim: sortedFields(c.Interim)})
	}
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Key, b.Key), cmp.Compare(a.Action, b.Action))
	})
	h := sha256.New()
	fmt.Fprintf(h, "ipsync plan 1\nowner %s\nmode %s\nadopt %t\n", p.Policy.Owner, p.Policy.Mode, p.Policy.Adopt)
	enc := json.NewEncoder(h)
	for _, e := range entries {
		// Encoding strings and slices cannot fail.
		_ = enc.Encode(e)
	}
	return fingerprintPrefix + hex.EncodeToString(h.Sum(nil))
}

func sortedFields(fields []resource.FieldDiff) []resource.FieldDiff {
	if len(fields) == 0 {
		return nil
	}
	out := slices.Clone(fields)
	slices.SortStableFunc(out, func(a, b resource.FieldDiff) int { return cmp.Compare(a.Field, b.Field) })
	return out
}

// ParseFingerprint checks that s is a fingerprint as Fingerprint writes it
// (surrounding space and a newline, as a file holds it, are allowed).
func ParseFingerprint(s string) (string, error) {
	s = strings.TrimSpace(s)
	hexPart, ok := strings.CutPrefix(s, fingerprintPrefix)
	if b, err := hex.DecodeString(hexPart); !ok || err != nil || len(b) != sha256.Size {
		return "", fmt.Errorf("%q is not a plan fingerprint: want %s and 64 hex digits, as ipsync plan prints it", s, fingerprintPrefix)
	}
	return strings.ToLower(s), nil
}

// Unreviewed says why p may not be applied when the plan a person reviewed
// had the fingerprint reviewed, or "" when p is that plan. A plan that
// writes nothing needs no review: applying it changes nothing.
func (p *Plan) Unreviewed(reviewed string) string {
	if p.Writes() == 0 {
		return ""
	}
	got := p.Fingerprint()
	if got == reviewed {
		return ""
	}
	return fmt.Sprintf("this plan (fingerprint %s) is not the reviewed one (%s): the spec or the target changed since the review; "+
		"make the plan again (ipsync plan -o markdown), have it reviewed, and give its fingerprint as the reviewed one", got, reviewed)
}
