package spec

import (
	"fmt"
	"strings"
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
	low := strings.ToLower(s)
	if a, ok := aliases()[low]; ok {
		for _, c := range candidates {
			if c == a {
				return c
			}
		}
	}
	best, bestD := "", len(low)+1
	for _, c := range candidates {
		if d := editDistance(low, c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= 1 {
		return best
	}
	// A word of the name ("group" for vlan_group, "type" for
	// network_type) or its start ("min" for minimum).
	if len(low) >= 3 {
		for _, c := range candidates {
			for _, w := range strings.Split(c, "_") {
				if strings.HasPrefix(w, low) {
					return c
				}
			}
		}
	}
	// Other typos; short names get less leeway, or every name would match.
	if limit := max(1, len(low)/3); bestD <= limit || (len(low) >= 4 && bestD <= 2) {
		return best
	}
	return ""
}

// hint is the " (did you mean ...)" or "(allowed: ...)" tail of an
// unknown-name message.
func hint(s string, candidates []string) string {
	if c := suggest(s, candidates); c != "" {
		return fmt.Sprintf("; did you mean %q?", c)
	}
	return fmt.Sprintf(" (allowed: %s)", strings.Join(candidates, ", "))
}

// editDistance counts the insertions, deletions, substitutions and swaps of
// neighbours (the commonest typo) that turn a into b. Names here are ASCII,
// so it works on bytes.
func editDistance(a, b string) int {
	rows := [3][]int{make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		prev2, prev, cur := rows[(i+1)%3], rows[(i+2)%3], rows[i%3]
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
	}
	return rows[len(a)%3][len(b)]
}
