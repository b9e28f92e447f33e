package reconcile

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// Problem is a reference that does not resolve, located in the spec.
type Problem struct {
	Source  resource.Source
	Key     resource.Key
	Field   string
	Message string
}

func (p Problem) String() string {
	at := p.Source.String()
	if at == "" {
		at = p.Key.String()
	}
	return fmt.Sprintf("%s: %s: %s", at, p.Field, p.Message)
}

// References checks that every reference of a desired object resolves once
// the plan is applied: to a desired object, to a current one the plan does
// not delete, or to a name the target owns. names nil (or a kind missing
// from it) means those names cannot be checked on this target.
func References(p *plan.Plan, desired, current []resource.Object, names map[resource.Kind]map[string]bool, server string) []Problem {
	// A key goes away with a delete, and with an update that renumbers
	// its object in place (the object then answers to the desired key).
	deleted := map[resource.Key]bool{}
	for _, c := range p.Changes {
		switch {
		case !referable(c.Key.Kind):
		case c.Action == plan.Delete:
			deleted[c.Key] = true
		case c.Action.Writes() && c.Current != nil && c.Current.Key() != c.Key:
			deleted[c.Current.Key()] = true
		}
	}
	have := map[resource.Key]bool{}
	for _, d := range desired {
		if referable(d.Kind()) {
			have[d.Key()] = true
		}
	}
	for _, c := range current {
		if !referable(c.Kind()) {
			continue
		}
		if k := c.Key(); !deleted[k] {
			have[k] = true
		}
	}
	rc := refCheck{have: have, names: names, groups: vlanGroups(desired, current, deleted), server: server}
	// The objects are checked in chunks on all cores; the problems keep
	// the order of desired.
	chunks := (len(desired) + chunkSize - 1) / chunkSize
	found := make([][]Problem, chunks)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range chunks {
		part := desired[i*chunkSize : min(len(desired), (i+1)*chunkSize)]
		if chunks == 1 {
			found[i] = rc.check(part)
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			found[i] = rc.check(part)
		})
	}
	wg.Wait()
	return slices.Concat(found...)
}

// chunkSize is how many desired objects one goroutine checks: enough that
// a site of a few thousand objects is checked without starting any.
const chunkSize = 64 << 10

// refCheck is what the references of desired objects resolve against.
type refCheck struct {
	have   map[resource.Key]bool
	names  map[resource.Kind]map[string]bool
	groups map[string]*resource.VLANGroup
	server string // the target, for messages
}

func (rc refCheck) check(desired []resource.Object) []Problem {
	var out []Problem
	var buf []resource.Reference
	// Objects of a site come in runs of one kind that name the same
	// namespace, status and tenant: the answer for each place in the list
	// of references is kept, and a reference equal to the last one there
	// is not looked up again.
	var last []seen
	for _, d := range desired {
		// The fix depends on where the object comes from: the spec is
		// edited, Neutron's data is changed in Neutron.
		fromNeutron := func() bool { return d.Meta().Owner.Source() == resource.SourceNeutron }
		if v, ok := d.(*resource.VLAN); ok {
			if g, ok := rc.groups[v.Group]; ok && len(g.Range) > 0 && !g.Range.Contains(v.VID) {
				msg := fmt.Sprintf("vid %d is outside range %s of VLAN group %s", v.VID, g.Range, g.Name)
				if fromNeutron() {
					msg += fmt.Sprintf(": move the segment in %s's Neutron, or widen the group's range where the group is declared (the static spec)", d.Meta().Owner.Name())
				}
				out = append(out, Problem{d.Meta().Source, d.Key(), "vid", msg})
			}
		}
		buf = resource.AppendReferences(buf[:0], d)
		for len(last) < len(buf) {
			last = append(last, seen{})
		}
		for i, ref := range buf {
			if l := &last[i]; l.kind == ref.Kind && l.name == ref.Name && l.valid {
				if l.ok {
					continue
				}
			} else {
				*l = seen{kind: ref.Kind, name: ref.Name, ok: rc.resolves(ref), valid: true}
				if l.ok {
					continue
				}
			}
			if ref.Kind.Rank() >= 0 {
				if !rc.have[resource.Key{Kind: ref.Kind, Name: ref.Name}] {
					msg := fmt.Sprintf("%s %q does not exist in the spec or the target", ref.Kind, ref.Name)
					if fromNeutron() {
						msg = fmt.Sprintf("%s %q does not exist in the target: declare it in the static spec and apply that first", ref.Kind, ref.Name)
					}
					out = append(out, Problem{d.Meta().Source, d.Key(), ref.Field, msg})
				}
				continue
			}
			known, checkable := rc.names[ref.Kind]
			if checkable && !known[ref.Name] {
				out = append(out, Problem{d.Meta().Source, d.Key(), ref.Field, fmt.Sprintf("unknown %s %q: create it in %s first, or fix the spelling", ref.Kind, ref.Name, rc.server)})
			}
		}
	}
	return out
}

// seen is the last reference at one place of the references' list, and
// whether it resolved.
type seen struct {
	kind      resource.Kind
	name      string
	ok, valid bool
}

// resolves says whether ref resolves: to a key there will be, or to a name
// the target has (or cannot tell).
func (rc refCheck) resolves(ref resource.Reference) bool {
	if ref.Kind.Rank() >= 0 {
		return rc.have[resource.Key{Kind: ref.Kind, Name: ref.Name}]
	}
	known, checkable := rc.names[ref.Kind]
	return !checkable || known[ref.Name]
}

// referable kinds are the ones objects refer to (see References of each
// kind in resource); indexing only those keeps the check cheap when a site
// holds a million IP addresses.
func referable(k resource.Kind) bool {
	return k == resource.KindNamespace || k == resource.KindVLANGroup || k == resource.KindVLAN || k == resource.KindAddressScope
}

// vlanGroups are the groups VLANs will be created in: desired ones win over
// what the target has now.
func vlanGroups(desired, current []resource.Object, deleted map[resource.Key]bool) map[string]*resource.VLANGroup {
	out := map[string]*resource.VLANGroup{}
	for _, c := range current {
		if g, ok := c.(*resource.VLANGroup); ok && !deleted[g.Key()] {
			out[g.Name] = g
		}
	}
	for _, d := range desired {
		if g, ok := d.(*resource.VLANGroup); ok {
			out[g.Name] = g
		}
	}
	return out
}
