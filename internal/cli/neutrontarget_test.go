package cli

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
)

// partTarget is one part of a neutronTarget in memory: it holds objs,
// refuses changes of the keys in refuse, and records what it is given to
// apply in a log it shares with the other part.
type partTarget struct {
	name    string
	objs    []resource.Object
	readErr error
	refuse  map[resource.Key]bool
	failAt  int // apply fails at this change (1-based), writing those before; 0: never
	log     *[]string
}

func (p *partTarget) Server() string { return "Neutron" }
func (p *partTarget) Read(context.Context) (reconcile.State, error) {
	if p.readErr != nil {
		return nil, p.readErr
	}
	return partState{p}, nil
}

type partState struct{ p *partTarget }

func (s partState) Objects() []resource.Object               { return s.p.objs }
func (s partState) Names() map[resource.Kind]map[string]bool { return nil }

// AsStored marks what went through it, so a test sees which part stored it.
func (s partState) AsStored(o resource.Object) resource.Object {
	if r, ok := o.(*resource.SegmentRange); ok {
		c := *r
		c.Description = s.p.name
		return &c
	}
	if p, ok := o.(*resource.SubnetPool); ok {
		c := *p
		c.Description = s.p.name
		return &c
	}
	return o
}

func (s partState) Check(c plan.Change, _ *plan.Plan) error {
	if s.p.refuse[c.Key] {
		return fmt.Errorf("%s refuses %s", s.p.name, c.Key)
	}
	return nil
}

func (s partState) Apply(_ context.Context, changes []plan.Change) (int, error) {
	for i, c := range changes {
		if i+1 == s.p.failAt {
			*s.p.log = append(*s.p.log, s.p.name+" failed "+c.Key.Name)
			return i, errors.New(s.p.name + " write failed")
		}
		*s.p.log = append(*s.p.log, s.p.name+" "+c.Key.Name)
	}
	return len(changes), nil
}

var (
	rangeA = &resource.SegmentRange{Name: "r-a", NetworkType: "vxlan", Minimum: 1, Maximum: 9}
	rangeB = &resource.SegmentRange{Name: "r-b", NetworkType: "vxlan", Minimum: 10, Maximum: 19}
	poolA  = &resource.SubnetPool{Name: "p-a", Namespace: "a11", Prefixes: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")}}
	scopeA = &resource.AddressScope{Namespace: "a11", IPVersion: 4}
)

func change(o resource.Object) plan.Change {
	return plan.Change{Action: plan.Create, Key: o.Key(), Desired: o}
}

func keys(objs []resource.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Key().String())
	}
	return out
}

// TestNeutronTargetRead: the site's Neutron state holds the objects of
// the parts the site opts in to, and a part's failed read fails the read.
func TestNeutronTargetRead(t *testing.T) {
	ranges := &partTarget{name: "ranges", objs: []resource.Object{rangeA}}
	pools := &partTarget{name: "pools", objs: []resource.Object{scopeA, poolA}}
	tests := []struct {
		name          string
		target        neutronTarget
		want          []string
		wantErrSubstr string
	}{
		{"both parts", neutronTarget{ranges: ranges, pools: pools}, keys([]resource.Object{rangeA, scopeA, poolA}), ""},
		{"ranges only", neutronTarget{ranges: ranges}, keys([]resource.Object{rangeA}), ""},
		{"pools only", neutronTarget{pools: pools}, keys([]resource.Object{scopeA, poolA}), ""},
		{"pools fail to read", neutronTarget{ranges: ranges, pools: &partTarget{name: "pools", readErr: errors.New("pools down")}}, nil, "pools down"},
		{"ranges fail to read", neutronTarget{ranges: &partTarget{name: "ranges", readErr: errors.New("ranges down")}, pools: pools}, nil, "ranges down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := tt.target.Read(context.Background())
			if tt.wantErrSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrSubstr) {
					t.Fatalf("Read() error = %v, want one naming %q", err, tt.wantErrSubstr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Read() error = %v", err)
			}
			if got := keys(st.Objects()); !slices.Equal(got, tt.want) {
				t.Errorf("Objects() = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestNeutronStateCheck: each change is checked by the part of its kind,
// and one of a kind the site does not opt in to is refused saying so.
func TestNeutronStateCheck(t *testing.T) {
	ranges := &partTarget{name: "ranges", refuse: map[resource.Key]bool{rangeB.Key(): true}}
	pools := &partTarget{name: "pools", refuse: map[resource.Key]bool{scopeA.Key(): true}}
	read := func(tg neutronTarget) reconcile.State {
		st, err := tg.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	both, rangesOnly, poolsOnly := read(neutronTarget{ranges: ranges, pools: pools}), read(neutronTarget{ranges: ranges}), read(neutronTarget{pools: pools})
	tests := []struct {
		name  string
		st    reconcile.State
		obj   resource.Object
		want  string // part of the refusal; "": allowed
		store string // the part AsStored went through; "": none
	}{
		{"range allowed by ranges", both, rangeA, "", "ranges"},
		{"range refused by ranges", both, rangeB, "ranges refuses segment_range r-b", "ranges"},
		{"pool allowed by pools", both, poolA, "", "pools"},
		{"scope refused by pools", both, scopeA, "pools refuses address_scope a11/v4", ""},
		{"pool on a site of ranges only", rangesOnly, poolA, "this site does not opt in to writing subnet_pools to its Neutron", ""},
		{"scope on a site of ranges only", rangesOnly, scopeA, "does not opt in to writing address_scopes", ""},
		{"range on a site of pools only", poolsOnly, rangeA, "this site does not opt in to writing segment_ranges to its Neutron", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := change(tt.obj)
			err := tt.st.Check(c, &plan.Plan{Changes: []plan.Change{c}})
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Check(%s) = %v, want it allowed", c.Key, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Check(%s) = %v, want a refusal containing %q", c.Key, err, tt.want)
			}
			got := tt.st.AsStored(tt.obj)
			var by string
			switch x := got.(type) {
			case *resource.SegmentRange:
				by = x.Description
			case *resource.SubnetPool:
				by = x.Description
			}
			if by != tt.store {
				t.Errorf("AsStored(%s) went through part %q, want %q", c.Key, by, tt.store)
			}
		})
	}
}

// TestNeutronStateApply: the ranges' changes are written first, then the
// pools', each part's in plan order; the writes are summed, and an error
// stops the apply with the writes made so far.
func TestNeutronStateApply(t *testing.T) {
	scopeB := &resource.AddressScope{Namespace: "b22", IPVersion: 4}
	poolB := &resource.SubnetPool{Name: "p-b", Namespace: "b22"}
	mixed := []plan.Change{change(scopeA), change(rangeA), change(poolA), change(scopeB), change(rangeB), change(poolB)}
	tests := []struct {
		name                    string
		withRanges, withPools   bool
		rangesFailAt, poolsFail int
		changes                 []plan.Change
		wantLog                 []string
		wantWrites              int
		wantErr                 string
	}{
		{name: "ranges then pools, each in plan order", withRanges: true, withPools: true, changes: mixed,
			wantLog:    []string{"ranges r-a", "ranges r-b", "pools a11/v4", "pools p-a", "pools b22/v4", "pools p-b"},
			wantWrites: 6},
		{name: "pools only", withRanges: true, withPools: true, changes: []plan.Change{change(scopeA), change(poolA)},
			wantLog: []string{"pools a11/v4", "pools p-a"}, wantWrites: 2},
		{name: "nothing to write", withRanges: true, withPools: true, wantWrites: 0},
		{name: "a range failing stops before the pools", withRanges: true, withPools: true, rangesFailAt: 2, changes: mixed,
			wantLog: []string{"ranges r-a", "ranges failed r-b"}, wantWrites: 1, wantErr: "ranges write failed"},
		{name: "a pool failing counts the writes before it", withRanges: true, withPools: true, poolsFail: 3, changes: mixed,
			wantLog:    []string{"ranges r-a", "ranges r-b", "pools a11/v4", "pools p-a", "pools failed b22/v4"},
			wantWrites: 4, wantErr: "pools write failed"},
		{name: "pools on a site of ranges only", withRanges: true, changes: mixed,
			wantLog: []string{"ranges r-a", "ranges r-b"}, wantWrites: 2, wantErr: "does not opt in to writing address_scopes"},
		{name: "ranges on a site of pools only", withPools: true, changes: mixed,
			wantWrites: 0, wantErr: "does not opt in to writing segment_ranges"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var log []string
			var tg neutronTarget
			if tt.withRanges {
				tg.ranges = &partTarget{name: "ranges", failAt: tt.rangesFailAt, log: &log}
			}
			if tt.withPools {
				tg.pools = &partTarget{name: "pools", failAt: tt.poolsFail, log: &log}
			}
			st, err := tg.Read(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			n, err := st.Apply(context.Background(), tt.changes)
			if n != tt.wantWrites {
				t.Errorf("Apply() wrote %d, want %d", n, tt.wantWrites)
			}
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Apply() error = %v, want %q", err, tt.wantErr)
			}
			if !slices.Equal(log, tt.wantLog) {
				t.Errorf("Apply() wrote %q, want %q", log, tt.wantLog)
			}
		})
	}
}

// TestSiteNeutronObjects: a site's Neutron receives the spec's ranges
// and pools of the kinds it opts in to, those of its own or of no site,
// and the address scopes of its pools.
func TestSiteNeutronObjects(t *testing.T) {
	owner := resource.StaticOwner("deploy")
	pool := func(name, site, ns, prefix string) *resource.SubnetPool {
		return &resource.SubnetPool{M: resource.Meta{Owner: owner}, Name: name, Site: site, Namespace: ns,
			Prefixes: []netip.Prefix{netip.MustParsePrefix(prefix)}}
	}
	spec := []resource.Object{
		&resource.SegmentRange{Name: "a11-vni", Site: "a11"},
		&resource.SegmentRange{Name: "b22-vni", Site: "b22"},
		&resource.SegmentRange{Name: "all-vni"},
		pool("a11-v4", "a11", "a11", "10.11.128.0/18"),
		pool("a11-v6", "a11", "a11", "2001:db8:11::/48"),
		pool("b22-v4", "b22", "b22", "10.22.0.0/16"),
		pool("all-v4", "", "shared", "10.99.0.0/16"),
		&resource.Namespace{Name: "a11"},
	}
	tests := []struct {
		name          string
		ranges, pools bool
		want          []string
	}{
		{"ranges only", true, false, []string{"segment_range a11-vni", "segment_range all-vni"}},
		{"pools only", false, true, []string{"subnet_pool a11-v4", "subnet_pool a11-v6", "subnet_pool all-v4",
			"address_scope a11/v4", "address_scope a11/v6", "address_scope shared/v4"}},
		{"both", true, true, []string{"segment_range a11-vni", "segment_range all-vni", "subnet_pool a11-v4", "subnet_pool a11-v6",
			"subnet_pool all-v4", "address_scope a11/v4", "address_scope a11/v6", "address_scope shared/v4"}},
		{"neither", false, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			site := &config.Site{Name: "a11", SegmentRanges: tt.ranges, SubnetPools: tt.pools}
			got := siteNeutronObjects(site, spec)
			if k := keys(got); !slices.Equal(k, tt.want) {
				t.Errorf("siteNeutronObjects(a11) = %v, want %v", k, tt.want)
			}
			for _, o := range got {
				if p, ok := o.(*resource.SubnetPool); ok && p.Site != "a11" {
					t.Errorf("pool %s goes to a11 with site %q, want a11", p.Name, p.Site)
				}
			}
		})
	}
}
