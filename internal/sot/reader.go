package sot

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// Known are what a read knows the objects others are named by as, by the
// server's ids: namespaces (NetBox's VRFs) and VLAN groups by name, VLANs
// by key. Prefixes name VLANs, VLANs name groups, and objects keyed in a
// namespace name it by id; an object read again later is named with the
// names of the read it updates.
type Known[ID comparable] struct {
	Namespaces, Groups, VLANs map[ID]string
}

// Reader is a dialect's side of one read of a scope: it sweeps in its
// wire format, through its endpoints and filters, and maps what it read
// to resource objects. The engine drives it: whole reads, rereads by id
// and reads by stamp go the same way on every server.
type Reader[ID cmp.Ordered] interface {
	// Want are the kinds the read returns.
	Want() []resource.Kind
	// SweepNamed reads the namespaces and VLAN groups among kinds that
	// sel selects, whole: not by the scope, as every read reads them.
	SweepNamed(ctx context.Context, sel changelog.Select, kinds []resource.Kind) error
	// LearnNamed takes the names of the namespaces and groups swept, in
	// place of those it had: a reread finds one deleted by its absence.
	LearnNamed()
	// SweepKinds reads the scope's VLANs, prefixes, IP addresses and ASNs
	// among kinds that sel selects, through the scope's filters.
	SweepKinds(ctx context.Context, kinds []resource.Kind, sel changelog.Select) error
	// SweptVLANs are the keys of the VLANs swept, by id, and the ids of
	// the VLANs the prefixes swept name.
	SweptVLANs() (keys map[ID]string, named []ID)
	// Resolve reads what else the objects swept refer to that the
	// sweeps did not include, besides VLANs (resolve).
	Resolve(ctx context.Context) error
	// Learn keeps the id of an object later writes refer to.
	Learn(k resource.Key, id ID)
	// Objects maps what was swept, keeping what the scope asks for.
	Objects() ([]resource.Object, error)
	// Names are the read's names; the engine may add to them.
	Names() Known[ID]
	// VLANKeys reads the keys of the VLANs with the given ids; gone ones
	// are left out.
	VLANKeys(ctx context.Context, ids []ID) (map[ID]string, error)
	// Again is a new read of the same scope's kinds want, with this
	// read's lookups and names; a fork learns into copies of the names.
	Again(want []resource.Kind, fork bool) Reader[ID]
	// ParseID is the id of a change log's object id.
	ParseID(string) (ID, bool)
	// RefNames are the names of the lookups the read was made with, for
	// the plan's reference check (reconcile's Names).
	RefNames() map[resource.Kind]map[string]bool
	// Settle takes out of ch the changes of lookups that leave every
	// object reading as before (changelog.Rereader).
	Settle(ctx context.Context, ch changelog.Changes) error
	// Save is the lookups and names of the read, as Dialect.Restore takes
	// them back.
	Save() ([]byte, error)
}

// read reads r's scope whole.
func read[ID cmp.Ordered](ctx context.Context, r Reader[ID]) ([]resource.Object, error) {
	if err := readNamed(ctx, r); err != nil {
		return nil, err
	}
	if err := r.SweepKinds(ctx, r.Want(), changelog.Select{}); err != nil {
		return nil, err
	}
	if err := resolve(ctx, r); err != nil {
		return nil, err
	}
	return r.Objects()
}

// resolve learns the keys of the VLANs swept, and reads those the
// prefixes swept name that the sweeps did not include (a VLAN outside the
// scope), then what else the dialect resolves.
func resolve[ID cmp.Ordered](ctx context.Context, r Reader[ID]) error {
	vlans := r.Names().VLANs
	learn := func(keys map[ID]string) {
		for id, key := range keys {
			vlans[id] = key
			r.Learn(resource.Key{Kind: resource.KindVLAN, Name: key}, id)
		}
	}
	swept, named := r.SweptVLANs()
	learn(swept)
	var missing []ID
	for _, id := range named {
		if vlans[id] == "" && !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		keys, err := r.VLANKeys(ctx, missing)
		if err != nil {
			return fmt.Errorf("vlans of prefixes: %w", err)
		}
		learn(keys)
	}
	return r.Resolve(ctx)
}

// readNamed reads every namespace and VLAN group, and learns their names.
func readNamed[ID cmp.Ordered](ctx context.Context, r Reader[ID]) error {
	if err := r.SweepNamed(ctx, changelog.Select{}, []resource.Kind{resource.KindNamespace, resource.KindVLANGroup}); err != nil {
		return err
	}
	r.LearnNamed()
	return nil
}

// Of is what every dialect's read holds besides its wire objects and
// names: the scope, the kinds it returns, and the count of its requests.
type Of struct {
	Scope scope.Scope
	Kinds []resource.Kind
	Tally *httpapi.Tally
}

// NewOf is a read of sc's kinds.
func NewOf(sc scope.Scope, kinds []resource.Kind) Of {
	return Of{Scope: sc, Kinds: kinds, Tally: &httpapi.Tally{}}
}

// Want are the kinds the read returns.
func (o *Of) Want() []resource.Kind { return o.Kinds }

// Wants says whether the read returns kind k.
func (o *Of) Wants(k resource.Kind) bool { return slices.Contains(o.Kinds, k) }

// InGroup is a wire VLAN: its id, and its group's id and its VID, of
// which its key is made.
type InGroup[ID comparable] interface {
	VLANOf() (id, group ID, vid uint16)
}

// VLANKeys are the keys of vs by id, their groups named by groups.
func VLANKeys[ID comparable, W any, PW interface {
	*W
	InGroup[ID]
}](vs []W, groups map[ID]string) map[ID]string {
	out := make(map[ID]string, len(vs))
	for i := range vs {
		id, group, vid := PW(&vs[i]).VLANOf()
		out[id] = resource.VLANKey(groups[group], vid)
	}
	return out
}

// NamedBy is a wire object others name by its name: a namespace (VRF)
// or a VLAN group.
type NamedBy[ID comparable] interface {
	NameOf() (id ID, name string)
}

// LearnNames are the names of ws by id, each learnt (learn) as the id of
// the kind k object of that name, for the writes that refer to it.
func LearnNames[ID comparable, W any, PW interface {
	*W
	NamedBy[ID]
}](ws []W, k resource.Kind, learn func(resource.Key, ID)) map[ID]string {
	out := make(map[ID]string, len(ws))
	for i := range ws {
		id, name := PW(&ws[i]).NameOf()
		out[id] = name
		learn(resource.Key{Kind: k, Name: name}, id)
	}
	return out
}
