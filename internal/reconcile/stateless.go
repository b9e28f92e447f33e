package reconcile

import (
	"context"

	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/resource"
)

// Lister is a target whose writes need nothing its reads learn: it keeps
// every object as given and owns none of the names objects refer to (the
// in-memory store, a Neutron's segment ranges).
type Lister interface {
	List(ctx context.Context) ([]resource.Object, error)
	Apply(ctx context.Context, changes []plan.Change) (writes int, err error)
	Server() string
}

// Stateless is l as a Target.
func Stateless(l Lister) Target { return stateless{l} }

type stateless struct{ Lister }

func (s stateless) Read(ctx context.Context) (State, error) {
	objs, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	return listed{objs: objs, l: s.Lister}, nil
}

// listed is one List of a Lister.
type listed struct {
	objs []resource.Object
	l    Lister
}

func (s listed) Objects() []resource.Object                               { return s.objs }
func (listed) Names() map[resource.Kind]map[string]bool                   { return nil }
func (listed) AsStored(o resource.Object) resource.Object                 { return o }
func (listed) Check(plan.Change, *plan.Plan) error                        { return nil }
func (s listed) Apply(ctx context.Context, ch []plan.Change) (int, error) { return s.l.Apply(ctx, ch) }
