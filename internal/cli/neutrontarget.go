package cli

import (
	"context"
	"errors"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
)

// neutronTarget is what ipsync writes to one site's Neutron: segment
// ranges, subnet pools with their address scopes, or both (a nil part is
// left out). The parts share nothing, so each reads and writes its own
// kinds.
type neutronTarget struct {
	ranges, pools reconcile.Target
}

func (t neutronTarget) Server() string { return "Neutron" }

func (t neutronTarget) Read(ctx context.Context) (reconcile.State, error) {
	var st neutronState
	for _, p := range []struct {
		t  reconcile.Target
		to *reconcile.State
	}{{t.ranges, &st.ranges}, {t.pools, &st.pools}} {
		if p.t == nil {
			continue
		}
		s, err := p.t.Read(ctx)
		if err != nil {
			return nil, err
		}
		*p.to = s
	}
	return st, nil
}

type neutronState struct {
	ranges, pools reconcile.State
}

// of is the part that holds kind k, nil if none does.
func (s neutronState) of(k resource.Kind) reconcile.State {
	if k == resource.KindSegmentRange {
		return s.ranges
	}
	return s.pools
}

func (s neutronState) Objects() []resource.Object {
	var out []resource.Object
	for _, p := range []reconcile.State{s.ranges, s.pools} {
		if p != nil {
			out = append(out, p.Objects()...)
		}
	}
	return out
}

func (neutronState) Names() map[resource.Kind]map[string]bool { return nil }

func (s neutronState) AsStored(o resource.Object) resource.Object {
	if p := s.of(o.Kind()); p != nil {
		return p.AsStored(o)
	}
	return o
}

func (s neutronState) Check(c plan.Change, p *plan.Plan) error {
	if part := s.of(c.Key.Kind); part != nil {
		return part.Check(c, p)
	}
	return errors.New("this site does not opt in to writing " + string(c.Key.Kind) + "s to its Neutron")
}

// Apply writes the ranges' changes, then the pools', each in plan order.
func (s neutronState) Apply(ctx context.Context, changes []plan.Change) (int, error) {
	var ranges, pools []plan.Change
	for _, c := range changes {
		if c.Key.Kind == resource.KindSegmentRange {
			ranges = append(ranges, c)
		} else {
			pools = append(pools, c)
		}
	}
	total := 0
	for _, p := range []struct {
		st reconcile.State
		ch []plan.Change
	}{{s.ranges, ranges}, {s.pools, pools}} {
		if len(p.ch) == 0 {
			continue
		}
		if p.st == nil {
			return total, errors.New("this site does not opt in to writing " + string(p.ch[0].Key.Kind) + "s to its Neutron")
		}
		n, err := p.st.Apply(ctx, p.ch)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

var _ reconcile.Target = neutronTarget{}
