package spec

import (
	"fmt"
	"strings"

	"github.com/ipsync/ipsync/internal/didyoumean"
)

// aliases are names people bring from Neutron, Nautobot's UI or habit, that
// edit distance alone would not connect to the field meant.
func aliases() map[string]string {
	return map[string]string{
		"vlan_id": "vid", "vlanid": "vid", "cidr": "prefix", "network": "prefix", "ip": "address",
		"physnet": "physical_network", "segmentation_id": "vid", "project": "project_id",
	}
}

// suggest returns the candidate the user most likely meant by s, or "".
func suggest(s string, candidates []string) string {
	return didyoumean.Closest(s, candidates, aliases())
}

// hint is the " (did you mean ...)" or "(allowed: ...)" tail of an
// unknown-name message.
func hint(s string, candidates []string) string {
	if c := suggest(s, candidates); c != "" {
		return fmt.Sprintf("; did you mean %q?", c)
	}
	return fmt.Sprintf(" (allowed: %s)", strings.Join(candidates, ", "))
}
