package nautobot

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/benchdata"
	"github.com/ipsync/ipsync/internal/ownership"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
	"github.com/ipsync/ipsync/internal/sot"
)

// The plan step on objects as a List decodes them from Nautobot's pages:
// the benchmark's site written as Nautobot 3.x answers a depth-0 list,
// 1,000 objects a page, then decoded and mapped by this package's own
// code, so that their strings are laid out as a real read lays them out.

const (
	pagesAPI     = "https://nautobot.example.net/api/"
	managedTag   = "managed-by-ipsync"
	ownerField   = "ipsync_owner"
	objectsAPage = 1000
)

// uuids hands out distinct ids in Nautobot's form.
type uuids int

func (u *uuids) next() string {
	*u++
	n := uint64(*u)
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", n*2654435761%(1<<32), n>>16&0xffff, n&0xfff, n>>4&0xfff, n*0x9e3779b97f4a7c15>>16)
}

// sitePages is the benchmark's site: what the planner is given (desired),
// and the target's objects written as Nautobot's list pages of each kind.
type sitePages struct {
	desired   []resource.Object
	generated []resource.Object // the target's objects as benchdata made them
	lookups   *lookups
	tagID     string // the marker tag's
	// unlisted are the namespaces and VLAN groups objects are in that are
	// not themselves among the objects (those of the extras): id -> name.
	unlisted map[resource.Kind]map[string]string
	pages    map[resource.Kind][][]byte
}

func newSitePages(n int) *sitePages {
	desired, current := benchdata.Resolved(n, owner)
	s := &sitePages{desired: desired, generated: current, pages: map[resource.Kind][][]byte{}}

	var ids uuids
	raw := map[resource.Kind][]named{}
	refs := map[resource.Kind]map[string]string{} // kind -> name -> id
	addRef := func(k resource.Kind, name string) string {
		if id, ok := refs[k][name]; ok {
			return id
		}
		id := ids.next()
		raw[k] = append(raw[k], named{ID: id, Name: name})
		if refs[k] == nil {
			refs[k] = map[string]string{}
		}
		refs[k][name] = id
		return id
	}
	s.tagID = addRef(refTag, managedTag)
	addRef(resource.RefStatus, "Active")
	addRef(resource.RefTenant, "tenant-x")
	addRef(refTag, "tenant")

	// Ids of what objects refer to, as a List learns them before mapping.
	names := map[resource.Kind]map[string]string{resource.KindNamespace: {}, resource.KindVLANGroup: {}, resource.KindVLAN: {}}
	refer := func(k resource.Kind, name string) string {
		if id, ok := names[k][name]; ok {
			return id
		}
		id := ids.next()
		names[k][name] = id
		return id
	}
	listed := map[string]bool{}
	prefixOf := map[string]string{} // namespace id -> a prefix id in it, a parent for addresses

	w := map[resource.Kind]*pageWriter{}
	for _, k := range sot.Kinds() {
		w[k] = &pageWriter{kind: k, pages: &s.pages}
	}
	ref := func(ot, path, id string) string {
		if id == "" {
			return "null"
		}
		return fmt.Sprintf(`{"id":%q,"object_type":%q,"url":"%s%s%s/"}`, id, ot, pagesAPI, path, id)
	}
	nameRef := func(k resource.Kind, ot, path, name string) string {
		if name == "" {
			return "null"
		}
		return ref(ot, path, addRef(k, name))
	}
	var stamp int
	common := func(b *strings.Builder, id, ot, path, display string, o resource.Object, tags []string) {
		stamp++
		t := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(stamp) * 7919 * time.Microsecond).Format("2006-01-02T15:04:05.000000Z")
		fmt.Fprintf(b, `{"id":%q,"object_type":%q,"display":%q,"url":"%s%s%s/","natural_slug":"%s_%s",`, id, ot, display, pagesAPI, path, id, strings.ReplaceAll(display, "/", "-"), id[:4])
		fmt.Fprintf(b, `"created":%q,"last_updated":%q,"notes_url":"%s%s%s/notes/","tags":[`, t, t, pagesAPI, path, id)
		all := append([]string{managedTag}, tags...)
		for i, tag := range all {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(ref("extras.tag", "extras/tags/", addRef(refTag, tag)))
		}
		fmt.Fprintf(b, `],"custom_fields":{%q:%q,"vni":null},`, ownerField, o.Meta().Owner)
	}
	for _, o := range s.generated {
		var b strings.Builder
		switch x := o.(type) {
		case *resource.Namespace:
			listed[refer(resource.KindNamespace, x.Name)] = true
			common(&b, refer(resource.KindNamespace, x.Name), "ipam.namespace", "ipam/namespaces/", x.Name, o, nil)
			fmt.Fprintf(&b, `"name":%q,"description":%q,"location":null}`, x.Name, x.Description)
		case *resource.VLANGroup:
			listed[refer(resource.KindVLANGroup, x.Name)] = true
			common(&b, refer(resource.KindVLANGroup, x.Name), "ipam.vlangroup", "ipam/vlan-groups/", x.Name, o, x.Tags)
			fmt.Fprintf(&b, `"name":%q,"description":%q,"location":null,"range":"1-4094"}`, x.Name, x.Description)
		case *resource.VLAN:
			common(&b, refer(resource.KindVLAN, x.Key().Name), "ipam.vlan", "ipam/vlans/", fmt.Sprintf("%s (%d)", x.Name, x.VID), o, x.Tags)
			fmt.Fprintf(&b, `"vid":%d,"name":%q,"description":%q,"vlan_group":%s,"status":%s,"role":null,"tenant":%s,"locations":[],"location_count":0}`,
				x.VID, x.Name, x.Description, ref("ipam.vlangroup", "ipam/vlan-groups/", refer(resource.KindVLANGroup, x.Group)),
				nameRef(resource.RefStatus, "extras.status", "extras/statuses/", x.Status), nameRef(resource.RefTenant, "tenancy.tenant", "tenancy/tenants/", x.Tenant))
		case *resource.Prefix:
			id, ns := ids.next(), refer(resource.KindNamespace, x.Namespace)
			if prefixOf[ns] == "" {
				prefixOf[ns] = id
			}
			vlan := "null"
			if x.VLAN != "" {
				vlan = ref("ipam.vlan", "ipam/vlans/", refer(resource.KindVLAN, x.VLAN))
			}
			common(&b, id, "ipam.prefix", "ipam/prefixes/", x.Prefix.String(), o, x.Tags)
			fmt.Fprintf(&b, `"prefix":%q,"network":%q,"broadcast":null,"prefix_length":%d,"type":{"value":%q,"label":"Network"},"ip_version":4,"date_allocated":null,`+
				`"description":%q,"status":%s,"role":null,"parent":null,"namespace":%s,"tenant":%s,"vlan":%s,"rir":null,"locations":[]}`,
				x.Prefix, x.Prefix.Addr(), x.Prefix.Bits(), x.Type, x.Description,
				nameRef(resource.RefStatus, "extras.status", "extras/statuses/", x.Status), ref("ipam.namespace", "ipam/namespaces/", ns),
				nameRef(resource.RefTenant, "tenancy.tenant", "tenancy/tenants/", x.Tenant), vlan)
		case *resource.IPAddress:
			common(&b, ids.next(), "ipam.ipaddress", "ipam/ip-addresses/", x.Address.String(), o, x.Tags)
			fmt.Fprintf(&b, `"address":%q,"host":%q,"mask_length":%d,"type":"host","ip_version":4,"dns_name":%q,"description":%q,`+
				`"status":%s,"role":null,"parent":%s,"tenant":%s,"nat_inside":null}`,
				x.Address, x.Address.Addr(), x.Address.Bits(), x.DNSName, x.Description,
				nameRef(resource.RefStatus, "extras.status", "extras/statuses/", x.Status),
				ref("ipam.prefix", "ipam/prefixes/", prefixOf[refer(resource.KindNamespace, x.Namespace)]),
				nameRef(resource.RefTenant, "tenancy.tenant", "tenancy/tenants/", x.Tenant))
		default:
			panic(fmt.Sprintf("no page for %T", o))
		}
		w[o.Kind()].add(b.String())
	}
	for _, pw := range w {
		pw.flush()
	}
	s.lookups = newLookups(raw)
	s.unlisted = map[resource.Kind]map[string]string{}
	for _, k := range []resource.Kind{resource.KindNamespace, resource.KindVLANGroup} {
		s.unlisted[k] = map[string]string{}
		for name, id := range names[k] {
			if !listed[id] {
				s.unlisted[k][id] = name
			}
		}
	}
	return s
}

// pageWriter gathers one kind's objects into pages.
type pageWriter struct {
	kind    resource.Kind
	pages   *map[resource.Kind][][]byte
	objects []string
}

func (p *pageWriter) add(o string) {
	p.objects = append(p.objects, o)
	if len(p.objects) == objectsAPage {
		p.flush()
	}
}

func (p *pageWriter) flush() {
	if len(p.objects) == 0 {
		return
	}
	n := len((*p.pages)[p.kind])
	page := fmt.Sprintf(`{"count":%d,"next":"%s?depth=0&limit=%d&offset=%d&sort=id","previous":null,"results":[%s]}`,
		n*objectsAPage+len(p.objects), pagesAPI, objectsAPage, (n+1)*objectsAPage, strings.Join(p.objects, ","))
	(*p.pages)[p.kind] = append((*p.pages)[p.kind], []byte(page))
	p.objects = p.objects[:0]
}

// decodePages decodes one kind's pages as the pager does, with decode,
// into a list made for all of them as the pager makes it from the count.
func decodePages[T any](pages [][]byte, decode func([]byte, any) error) ([]T, error) {
	out := make([]T, 0, len(pages)*objectsAPage)
	for _, b := range pages {
		var p page[T]
		if err := decode(b, &p); err != nil {
			return nil, err
		}
		out = append(out, p.Results...)
	}
	return out, nil
}

// read decodes the site's pages with decode and maps them as List does.
func (s *sitePages) read(decode func([]byte, any) error) ([]resource.Object, error) {
	r := &reading{Of: sot.NewOf(scope.Scope{}, sot.Kinds()), m: &mapper{l: s.lookups, managedTag: s.tagID, owner: ownership.Marker{Tag: managedTag, OwnerField: ownerField}}}
	var err error
	if r.nss, err = decodePages[wireNamespace](s.pages[resource.KindNamespace], decode); err != nil {
		return nil, err
	}
	if r.groups, err = decodePages[wireVLANGroup](s.pages[resource.KindVLANGroup], decode); err != nil {
		return nil, err
	}
	if r.vlans, err = decodePages[wireVLAN](s.pages[resource.KindVLAN], decode); err != nil {
		return nil, err
	}
	if r.prefixes, err = decodePages[wirePrefix](s.pages[resource.KindPrefix], decode); err != nil {
		return nil, err
	}
	if r.ips, err = decodePages[wireIP](s.pages[resource.KindIPAddress], decode); err != nil {
		return nil, err
	}
	r.m.namespaces, r.m.groups, r.m.vlans = map[string]string{}, map[string]string{}, map[string]string{}
	r.m.prefixNS = make(map[string]string, len(r.prefixes))
	for _, n := range r.nss {
		r.m.namespaces[n.ID] = n.Name
	}
	for _, g := range r.groups {
		r.m.groups[g.ID] = g.Name
	}
	maps.Copy(r.m.namespaces, s.unlisted[resource.KindNamespace])
	maps.Copy(r.m.groups, s.unlisted[resource.KindVLANGroup])
	for _, v := range r.vlans {
		r.m.vlans[v.ID] = resource.VLANKey(r.m.groups[refID(v.Group)], v.VID)
	}
	for _, p := range r.prefixes {
		r.m.prefixNS[p.ID] = refID(p.Namespace)
	}
	return r.Objects()
}

// decodedTarget answers a plan with objects read beforehand.
type decodedTarget struct{ current []resource.Object }

func (decodedTarget) Server() string                                  { return "the decoded pages" }
func (t decodedTarget) Read(context.Context) (reconcile.State, error) { return t, nil }
func (t decodedTarget) Objects() []resource.Object                    { return t.current }
func (decodedTarget) AsStored(o resource.Object) resource.Object      { return o }
func (decodedTarget) Apply(context.Context, []plan.Change) (int, error) {
	return 0, fmt.Errorf("no writes")
}
func (decodedTarget) Check(c plan.Change, _ *plan.Plan) error {
	if c.Desired == nil {
		return nil
	}
	return Supports(c.Desired)
}
func (decodedTarget) Names() map[resource.Kind]map[string]bool {
	return map[resource.Kind]map[string]bool{resource.RefStatus: {"Active": true}, resource.RefTenant: {"tenant-x": true}, resource.RefTag: {"tenant": true}}
}

// TestDecodedPagesPlanAsGenerated: the site read back from its pages
// plans exactly as the objects it was written from.
func TestDecodedPagesPlanAsGenerated(t *testing.T) {
	s := newSitePages(20_000)
	read, err := s.read(newDecoder().Decode)
	if err != nil {
		t.Fatal(err)
	}
	if len(read) != len(s.generated) {
		t.Fatalf("read %d objects, want %d", len(read), len(s.generated))
	}
	got, want := planOf(t, s.desired, read).Plan.Changes, planOf(t, s.desired, s.generated).Plan.Changes
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("plan of the decoded objects has %d changes, of the generated ones %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Action != want[i].Action || got[i].Key != want[i].Key || fmt.Sprint(got[i].Fields) != fmt.Sprint(want[i].Fields) {
			t.Fatalf("change %d of the decoded objects = %c %v %v, of the generated ones %c %v %v", i,
				got[i].Action, got[i].Key, got[i].Fields, want[i].Action, want[i].Key, want[i].Fields)
		}
	}
}

func planOf(tb testing.TB, desired, current []resource.Object) *reconcile.Result {
	tb.Helper()
	r, err := reconcile.Make(context.Background(), decodedTarget{current}, func(context.Context, []resource.Object) ([]resource.Object, error) { return desired, nil },
		plan.DefaultPolicy(owner), scope.Scope{})
	if err != nil {
		tb.Fatal(err)
	}
	if len(r.Plan.Refusals) > 0 {
		tb.Fatalf("plan refused: %v", r.Plan.Refusals[:min(3, len(r.Plan.Refusals))])
	}
	return r
}

// BenchmarkPlanStepDecoded is the whole plan step (as
// reconcile.BenchmarkPlanStep) on the target's objects as decoded from
// Nautobot's pages, beside the same objects as benchdata generates them
// and as encoding/json decoded them before, in one run; step=read is the
// decoding and mapping of the pages, before and now.
func BenchmarkPlanStepDecoded(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		s := newSitePages(n)
		read := map[string][]resource.Object{}
		for _, d := range []struct {
			name   string
			decode func([]byte, any) error
		}{{"encoding-json", json.Unmarshal}, {"json-v2", newDecoder().Decode}} {
			b.Run(fmt.Sprintf("objects=%d/step=read/decoder=%s", n, d.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					objs, err := s.read(d.decode)
					if err != nil {
						b.Fatal(err)
					}
					read[d.name] = objs
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(read[d.name])), "ns/object")
			})
		}
		for _, c := range []struct {
			name    string
			current []resource.Object
		}{{"decoded", read["json-v2"]}, {"generated", s.generated}, {"decoded-by-encoding-json", read["encoding-json"]}} {
			b.Run(fmt.Sprintf("objects=%d/step=plan/current=%s", n, c.name), func(b *testing.B) {
				b.ReportAllocs()
				var r *reconcile.Result
				for b.Loop() {
					r = planOf(b, s.desired, c.current)
				}
				b.ReportMetric(float64(len(r.Plan.Changes)), "changes")
			})
		}
	}
}
