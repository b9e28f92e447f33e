package spec

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ipsync/ipsync/internal/resource"
)

// Validate checks objects against each other: duplicate natural keys (in
// any file), VLANs inside their group's range, overlapping networks and
// segment ranges, IPs inside a prefix of their namespace, and references to
// namespaces, VLAN groups and VLANs, which must be declared in the spec
// (the namespace Global excepted). Problems are located by each object's
// Meta().Source.
func Validate(objs []resource.Object) Diagnostics {
	return validate(objs, nil, nil, true)
}

// validate is Validate with each object's field positions (nil: use the
// object's source) and the partly broken objects that still count as
// declared. complete is false when some file could not be read to its
// end: what it declares is unknown, so unresolved references are not
// reported, as they may be declared there.
//
// broken are items with problems already reported; their sound fields'
// references are checked too.
func validate(objs []resource.Object, fields [][]fieldPos, partial []resource.Object, complete bool, broken ...brokenItem) Diagnostics {
	c := &checker{objs: objs, fields: fields, complete: complete,
		namespaces: map[string]bool{DefaultNamespace: true},
		groups:     map[string]*resource.VLANGroup{},
		vlans:      map[string]bool{},
	}
	c.index(partial)
	c.checkVLANs()
	c.checkAddressSpace()
	c.checkSegmentRanges()
	c.checkSubnetPools()
	c.checkBroken(broken)
	return c.diags.sorted()
}

type checker struct {
	objs     []resource.Object
	fields   [][]fieldPos
	complete bool
	diags    Diagnostics

	namespaces map[string]bool
	// groups maps declared group names to the group; nil for a group that
	// is declared but broken, whose range is unknown.
	groups map[string]*resource.VLANGroup
	vlans  map[string]bool // keys of declared VLANs

	// Indexes into objs, per kind.
	vlanIdx, prefixIdx, ipIdx, segIdx, poolIdx []int
}

// index finds duplicates and records what is declared.
func (c *checker) index(partial []resource.Object) {
	// Prefixes and IPs, nine objects in ten, are checked for duplicates
	// by checkAddressSpace, per namespace, which is cheaper than hashing
	// them all here.
	first := map[resource.Identity]int{}
	firstUnique := map[resource.UniqueKey]int{}
	for i, o := range c.objs {
		switch o.(type) {
		case *resource.Prefix:
			c.prefixIdx = append(c.prefixIdx, i)
			continue
		case *resource.IPAddress:
			c.ipIdx = append(c.ipIdx, i)
			continue
		}
		id := o.Identity()
		if j, dup := first[id]; dup {
			c.duplicate(i, j)
			continue
		}
		first[id] = i
		for _, u := range o.UniqueKeys() {
			if j, dup := firstUnique[u]; dup {
				c.uniqueTaken(i, j, u)
				continue
			}
			firstUnique[u] = i
		}
		switch x := o.(type) {
		case *resource.Namespace:
			c.namespaces[x.Name] = true
		case *resource.VLANGroup:
			c.groups[x.Name] = x
		case *resource.VLAN:
			c.vlans[resource.VLANKey(x.Group, x.VID)] = true
			c.vlanIdx = append(c.vlanIdx, i)
		case *resource.SegmentRange:
			c.segIdx = append(c.segIdx, i)
		case *resource.SubnetPool:
			c.poolIdx = append(c.poolIdx, i)
		}
	}
	for _, o := range partial {
		switch x := o.(type) {
		case *resource.Namespace:
			c.namespaces[x.Name] = true
		case *resource.VLANGroup:
			if _, ok := c.groups[x.Name]; !ok {
				c.groups[x.Name] = nil
			}
		case *resource.VLAN:
			c.vlans[resource.VLANKey(x.Group, x.VID)] = true
		}
	}
}

// duplicate reports object i as declared before, by object j.
func (c *checker) duplicate(i, j int) {
	o := c.objs[i]
	c.report(i, keyField(o.Kind()), fmt.Sprintf("duplicate %s %s, first declared at %s", o.Kind(), o.Key().Name, c.objs[j].Meta().Source))
}

// uniqueTaken reports object i as taking unique key u, which object j
// declared before: the target would refuse the second when it is
// written, after the objects before it.
func (c *checker) uniqueTaken(i, j int, u resource.UniqueKey) {
	o := c.objs[j]
	c.report(i, u.Field, fmt.Sprintf("%s %q is taken in %s by %s %s, declared at %s; nautobot refuses %s",
		u.Field, u.Value, u.In, o.Kind(), o.Key().Name, o.Meta().Source, u.Rule()))
}

// keyField is the field a duplicate is reported at.
func keyField(k resource.Kind) string {
	switch k {
	case resource.KindVLAN:
		return "vid"
	case resource.KindPrefix:
		return "prefix"
	case resource.KindIPAddress:
		return "address"
	case resource.KindASN:
		return "asn"
	}
	return "name"
}

func (c *checker) checkVLANs() {
	for _, i := range c.vlanIdx {
		v := c.objs[i].(*resource.VLAN)
		g, declared := c.groups[v.Group]
		switch {
		case !declared && !c.complete:
		case !declared:
			c.report(i, "vlan_group", fmt.Sprintf("vlan_group %q is not declared in the spec%s", v.Group,
				didYouMean(v.Group, slices.Sorted(maps.Keys(c.groups)))))
		case g == nil:
		case len(g.Range) == 0:
			if v.VID < resource.MinVID || v.VID > resource.MaxVID {
				c.report(i, "vid", fmt.Sprintf("vid %d is outside %d-%d", v.VID, resource.MinVID, resource.MaxVID))
			}
		case !g.Range.Contains(v.VID):
			c.report(i, "vid", fmt.Sprintf("vid %d is outside range %s of vlan_group %s (declared at %s)", v.VID, g.Range, g.Name, g.M.Source))
		}
	}
}

// undeclaredNamespace reports object i's reference to namespace ns, which
// the spec does not declare.
func (c *checker) undeclaredNamespace(i int, ns string) {
	if !c.complete {
		return
	}
	c.report(i, "namespace", fmt.Sprintf("namespace %q is not declared in the spec%s", ns,
		didYouMean(ns, slices.Sorted(maps.Keys(c.namespaces)))))
}

func (c *checker) report(i int, field, msg string) {
	c.diags = append(c.diags, diagAt(c.at(i, field), field, msg))
}

// at is where field of object i is written, or the object itself.
func (c *checker) at(i int, field string) resource.Source {
	src := c.objs[i].Meta().Source
	if c.fields != nil {
		for _, f := range c.fields[i] {
			if f.name == field {
				return resource.Source{File: src.File, Line: int(f.line), Col: int(f.col)}
			}
		}
	}
	return src
}

// checkBroken reports the references of broken items that do not resolve,
// in fields that were read without a problem. Only references: everything
// else about an item depends on the fields that are wrong.
func (c *checker) checkBroken(items []brokenItem) {
	if !c.complete {
		return
	}
	for _, b := range items {
		sound := func(field string) bool {
			if slices.Contains(b.reported, field) {
				return false
			}
			return slices.ContainsFunc(b.fields, func(f fieldPos) bool { return f.name == field })
		}
		at := func(field string) resource.Source {
			src := b.obj.Meta().Source
			for _, f := range b.fields {
				if f.name == field {
					return resource.Source{File: src.File, Line: int(f.line), Col: int(f.col)}
				}
			}
			return src
		}
		report := func(field, msg string) { c.diags = append(c.diags, diagAt(at(field), field, msg)) }
		namespace := func(ns string) {
			if sound("namespace") && !c.namespaces[ns] {
				report("namespace", fmt.Sprintf("namespace %q is not declared in the spec%s", ns, didYouMean(ns, slices.Sorted(maps.Keys(c.namespaces)))))
			}
		}
		switch o := b.obj.(type) {
		case *resource.VLAN:
			if _, ok := c.groups[o.Group]; sound("vlan_group") && !ok {
				report("vlan_group", fmt.Sprintf("vlan_group %q is not declared in the spec%s", o.Group, didYouMean(o.Group, slices.Sorted(maps.Keys(c.groups)))))
			}
		case *resource.Prefix:
			namespace(o.Namespace)
			if sound("vlan") && o.VLAN != "" && !c.vlans[o.VLAN] {
				report("vlan", fmt.Sprintf("vlan %s is not declared in the spec", o.VLAN))
			}
		case *resource.IPAddress:
			namespace(o.Namespace)
		}
	}
}
