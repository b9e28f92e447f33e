package resource

import (
	"fmt"
	"strings"
)

// Owner names the one source of truth of an object: "static:<spec>" for the
// YAML spec, "neutron:<site>" for a site's Neutron. The empty Owner means the
// object carries no ipsync marker (created by hand or by another tool).
type Owner string

// Owner sources.
const (
	SourceStatic  = "static"
	SourceNeutron = "neutron"
)

// StaticOwner is the owner of objects declared in the spec named name.
func StaticOwner(name string) Owner { return Owner(SourceStatic + ":" + name) }

// NeutronOwner is the owner of objects observed in the Neutron of site.
func NeutronOwner(site string) Owner { return Owner(SourceNeutron + ":" + site) }

// ParseOwner checks that s has the form "<source>:<name>".
func ParseOwner(s string) (Owner, error) {
	src, name, ok := strings.Cut(s, ":")
	if !ok || name == "" || (src != SourceStatic && src != SourceNeutron) {
		return "", fmt.Errorf("owner %q: want static:<spec-name> or neutron:<site>", s)
	}
	return Owner(s), nil
}

// Source is the part before the colon ("static" or "neutron").
func (o Owner) Source() string { s, _, _ := strings.Cut(string(o), ":"); return s }

// Name is the part after the colon (spec or site name).
func (o Owner) Name() string { _, n, _ := strings.Cut(string(o), ":"); return n }
