package cli

import (
	"fmt"
	"strings"

	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/didyoumean"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/spec"
)

// unknownSites are the spec's segment ranges and subnet pools whose site
// the config does not declare: the spec alone cannot tell a typo, and such
// an object would go to no Neutron, without a word. They are notes, not
// errors: one deploy repo may hold the sites of several regions, each
// with a config of its own sites. A config of no sites writes to no
// Neutron, and is told nothing.
func unknownSites(cfg *config.Config, objs []resource.Object) spec.Diagnostics {
	if len(cfg.Sites) == 0 {
		return nil
	}
	var names []string
	declared := map[string]bool{}
	for _, s := range cfg.Sites {
		names = append(names, s.Name)
		declared[s.Name] = true
	}
	var out spec.Diagnostics
	for _, o := range objs {
		var site string
		switch x := o.(type) {
		case *resource.SegmentRange:
			site = x.Site
		case *resource.SubnetPool:
			site = x.Site
		default:
			continue
		}
		if site == "" || declared[site] {
			continue
		}
		msg := fmt.Sprintf("no site %q in the config (its sites: %s): it goes to no Neutron this config writes to%s",
			site, strings.Join(names, ", "), didyoumean.Hint(site, names, nil))
		src := o.Meta().Source
		out = append(out, spec.Diagnostic{File: src.File, Line: src.Line, Col: src.Col, Field: "site", Message: msg})
	}
	return out
}
