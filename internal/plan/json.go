package plan

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/ipsync/ipsync/internal/resource"
)

// FormatVersion is the version of the saved-plan JSON. Readers refuse other
// versions rather than guess.
const FormatVersion = 1

// Saved is a plan as written to disk, with what apply needs to check that the
// target did not move since.
type Saved struct {
	FormatVersion int `json:"format_version"`
	// Target identifies what the plan was made against (e.g. the Nautobot
	// URL); apply refuses a plan for another target.
	Target string `json:"target,omitempty"`
	// Fingerprint names the plan's writes (see Plan.Fingerprint): what
	// apply --reviewed and the reconciler compare with the reviewed one.
	Fingerprint string        `json:"fingerprint"`
	Policy      Policy        `json:"policy"`
	Owned       int           `json:"owned"`
	Summary     []SummaryRow  `json:"summary"`
	Refusals    []string      `json:"refusals,omitempty"`
	Leaks       []Leak        `json:"leaks"`
	Changes     []savedChange `json:"changes"`
}

// SummaryRow is one kind's counts.
type SummaryRow struct {
	Kind     resource.Kind `json:"kind"`
	Create   int           `json:"create"`
	Update   int           `json:"update"`
	Adopt    int           `json:"adopt"`
	Delete   int           `json:"delete"`
	Conflict int           `json:"conflict"`
	Noop     int           `json:"noop"`
	Skip     int           `json:"skip"`
}

type savedChange struct {
	Action       string               `json:"action"`
	Kind         resource.Kind        `json:"kind"`
	Key          string               `json:"key"`
	Fields       []resource.FieldDiff `json:"fields"`
	Reason       string               `json:"reason,omitempty"`
	Interim      []resource.FieldDiff `json:"interim,omitempty"`
	CurrentOwner resource.Owner       `json:"current_owner,omitempty"`
	Desired      json.RawMessage      `json:"desired,omitempty"`
	Current      json.RawMessage      `json:"current,omitempty"`
}

// total adds up rows: the summary's last line.
func total(rows []SummaryRow) SummaryRow {
	var t SummaryRow
	for _, r := range rows {
		t.Create += r.Create
		t.Update += r.Update
		t.Adopt += r.Adopt
		t.Delete += r.Delete
		t.Conflict += r.Conflict
		t.Noop += r.Noop
		t.Skip += r.Skip
	}
	return t
}

// Rows lists the summary in dependency order.
func (s Summary) Rows() []SummaryRow {
	var rows []SummaryRow
	for _, k := range s.Kinds() {
		m := s[k]
		rows = append(rows, SummaryRow{Kind: k, Create: m[Create], Update: m[Update], Adopt: m[Adopt],
			Delete: m[Delete], Conflict: m[Conflict], Noop: m[Noop], Skip: m[Skip]})
	}
	return rows
}

// WriteJSON writes p as a versioned, indented JSON document.
func (p *Plan) WriteJSON(w io.Writer, target string) error {
	s := Saved{FormatVersion: FormatVersion, Target: target, Fingerprint: p.Fingerprint(), Policy: p.Policy, Owned: p.Owned,
		Summary: p.Summary.Rows(), Refusals: p.Refusals, Leaks: p.Leaks, Changes: make([]savedChange, 0, len(p.Changes))}
	if s.Leaks == nil {
		s.Leaks = []Leak{}
	}
	for _, c := range p.Changes {
		sc := savedChange{Action: c.Action.String(), Kind: c.Key.Kind, Key: c.Key.Name, Fields: c.Fields, Reason: c.Reason, Interim: c.Interim}
		if sc.Fields == nil {
			sc.Fields = []resource.FieldDiff{}
		}
		var err error
		if c.Desired != nil {
			if sc.Desired, err = json.Marshal(c.Desired); err != nil {
				return fmt.Errorf("encode %s: %w", c.Key, err)
			}
		}
		if c.Current != nil {
			sc.CurrentOwner = c.Current.Meta().Owner
			if sc.Current, err = json.Marshal(c.Current); err != nil {
				return fmt.Errorf("encode %s: %w", c.Key, err)
			}
		}
		s.Changes = append(s.Changes, sc)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// ReadJSON reads a plan written by WriteJSON and returns it with the target
// it was made against.
func ReadJSON(r io.Reader) (*Plan, string, error) {
	var s Saved
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return nil, "", fmt.Errorf("decode plan: %w", err)
	}
	if s.FormatVersion != FormatVersion {
		return nil, "", fmt.Errorf("plan has format_version %d, this ipsync reads %d: make the plan again with this version", s.FormatVersion, FormatVersion)
	}
	p := &Plan{Policy: s.Policy, Owned: s.Owned, Refusals: s.Refusals, Leaks: s.Leaks, Summary: Summary{}}
	for _, row := range s.Summary {
		for a, n := range map[Action]int{Create: row.Create, Update: row.Update, Adopt: row.Adopt, Delete: row.Delete,
			Conflict: row.Conflict, Noop: row.Noop, Skip: row.Skip} {
			if n > 0 {
				if p.Summary[row.Kind] == nil {
					p.Summary[row.Kind] = map[Action]int{}
				}
				p.Summary[row.Kind][a] = n
			}
		}
	}
	for i, sc := range s.Changes {
		a, err := parseAction(sc.Action)
		if err != nil {
			return nil, "", fmt.Errorf("change %d: %w", i, err)
		}
		c := Change{Action: a, Key: resource.Key{Kind: sc.Kind, Name: sc.Key}, Fields: sc.Fields, Reason: sc.Reason, Interim: sc.Interim}
		if len(sc.Desired) > 0 {
			if c.Desired, err = resource.Decode(sc.Kind, sc.Desired); err != nil {
				return nil, "", fmt.Errorf("change %d (%s): %w", i, c.Key, err)
			}
		}
		if len(sc.Current) > 0 {
			if c.Current, err = resource.Decode(sc.Kind, sc.Current); err != nil {
				return nil, "", fmt.Errorf("change %d (%s): %w", i, c.Key, err)
			}
		}
		if err := c.check(p.Policy.Owner); err != nil {
			return nil, "", fmt.Errorf("change %d: %w", i, err)
		}
		p.Changes = append(p.Changes, c)
	}
	// What a reviewer saw of the plan is what it lists; a list edited
	// since has another fingerprint.
	if s.Fingerprint != "" && s.Fingerprint != p.Fingerprint() {
		return nil, "", fmt.Errorf("plan has fingerprint %s, but its changes have %s: it was edited after it was saved; make it again", s.Fingerprint, p.Fingerprint())
	}
	return p, s.Target, nil
}

// renumbers reports whether c is an update that changes its object's
// natural key in place (a VLAN's vid).
func (c Change) renumbers() bool {
	if c.Action != Update || c.Desired == nil || c.Current == nil {
		return false
	}
	_, ok := resource.Renumbering(c.Desired, c.Current)
	return ok
}

func parseAction(s string) (Action, error) {
	for a, n := range actionNames {
		if n == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("unknown action %q", s)
}

// check refuses a change that could not have come from Make, so that a
// hand-edited plan cannot delete what its owner does not own.
func (c Change) check(owner resource.Owner) error {
	needDesired := c.Action == Create || c.Action == Update || c.Action == Adopt
	needCurrent := c.Action == Update || c.Action == Adopt || c.Action == Delete
	switch {
	case needDesired && c.Desired == nil:
		return fmt.Errorf("%s %s has no desired object", c.Action, c.Key)
	case needCurrent && c.Current == nil:
		return fmt.Errorf("%s %s has no current object", c.Action, c.Key)
	case c.Desired != nil && c.Desired.Key() != c.Key:
		return fmt.Errorf("%s %s: desired object has key %s", c.Action, c.Key, c.Desired.Key())
	case c.Current != nil && c.Current.Key() != c.Key && !c.renumbers():
		return fmt.Errorf("%s %s: current object has key %s", c.Action, c.Key, c.Current.Key())
	case len(c.Interim) > 0 && c.Action != Update && c.Action != Adopt && c.Action != Delete:
		return fmt.Errorf("%s %s: only an object the plan writes takes interim values", c.Action, c.Key)
	case (c.Action == Update || c.Action == Delete) && c.Current.Meta().Owner != owner:
		return fmt.Errorf("%s %s: object is owned by %q, not by the plan's owner %s", c.Action, c.Key, c.Current.Meta().Owner, owner)
	case c.Action == Adopt && c.Current.Meta().Owner != "":
		return fmt.Errorf("adopt %s: object already carries owner %s", c.Key, c.Current.Meta().Owner)
	}
	return nil
}
