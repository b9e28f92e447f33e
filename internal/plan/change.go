package plan

import "github.com/ipsync/ipsync/internal/resource"

// Action is what a plan does to one object.
type Action rune

const (
	Noop     Action = '='
	Create   Action = '+'
	Update   Action = '~'
	Adopt    Action = '&' // take over an unmarked object: set the marker, fix fields
	Delete   Action = '-'
	Conflict Action = '!' // refused: the object belongs to someone else
)

var actionNames = map[Action]string{
	Noop: "noop", Create: "create", Update: "update", Adopt: "adopt", Delete: "delete", Conflict: "conflict",
}

func (a Action) String() string {
	if n, ok := actionNames[a]; ok {
		return n
	}
	return "unknown"
}

// Writes reports whether applying the action writes to the target.
func (a Action) Writes() bool { return a == Create || a == Update || a == Adopt || a == Delete }

// Change is the plan for one object.
type Change struct {
	Action Action
	Key    resource.Key
	// Desired is the object as its owner wants it (create, update, adopt,
	// conflict); its Meta().Owner is the owner being synced.
	Desired resource.Object
	// Current is the object as the target has it (update, adopt, delete,
	// conflict); its Meta carries the target's id and version.
	Current resource.Object
	// Fields are the field-level differences, current -> desired.
	Fields []resource.FieldDiff
	// Reason explains a conflict, an adopt, a renumber or an interim
	// value.
	Reason string
	// Interim are values the object takes for the time of the apply, so
	// that a unique value it gives up is free for the write that takes
	// it (two VLANs swapping names): a target writes every change's
	// Interim before any other write of the plan, then the change itself.
	// They are text fields, set by the planner only.
	Interim []resource.FieldDiff
}
