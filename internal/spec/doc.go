// Package spec loads the static YAML spec (the deploy repo's files) into
// resource objects and checks it, reporting every problem with the file,
// line, column and field a user has to fix.
//
// A spec file is a mapping whose keys are kinds, each holding a list:
//
//	namespaces:     [{name, description, location}]
//	vlan_groups:    [{name, location, range, description, tags}]
//	vlans:          [{vid, name, vlan_group, status, role, tenant, description, tags}]
//	prefixes:       [{prefix, namespace, type, status, location, locations, vlan, vni, role, tenant, description, tags}]
//	ip_addresses:   [{address, namespace, status, role, dns_name, tenant, description, tags}]
//	segment_ranges: [{name, site, network_type, physical_network, minimum, maximum, shared, project_id, description}]
//	asns:           [{asn, rir, status, tenant, description, tags}]
//
// Checking happens in two steps. Parse looks at one file: YAML syntax,
// unknown and repeated fields, types, required fields and everything that
// can be judged from one list item alone (CIDR syntax, host bits, bounds).
// Validate looks across all objects: duplicates, VLANs in their group's
// range, overlapping networks and segment ranges, IPs inside their
// namespace's prefixes, and references between spec objects. References to
// what Nautobot owns (locations, statuses, roles, tenants) cannot be checked
// here; the planner checks them against the target.
package spec
