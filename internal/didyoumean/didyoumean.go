// Package didyoumean finds the name a user most likely meant when they
// wrote one that does not exist: a field of the spec, a key of the config.
package didyoumean

import "strings"

// Closest returns the candidate s most likely misspells, or "". aliases
// maps names people bring from elsewhere (Neutron's, Nautobot's UI's) that
// no edit distance would connect to the name meant.
func Closest(s string, candidates []string, aliases map[string]string) string {
	low := strings.ToLower(s)
	if a, ok := aliases[low]; ok {
		for _, c := range candidates {
			if c == a {
				return c
			}
		}
	}
	best, bestD := "", len(low)+1
	for _, c := range candidates {
		if d := Distance(low, c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= 1 {
		return best
	}
	// A word of the name, or a word misspelt ("tokn" for token_file), or
	// its start ("min" for minimum, "type" for network_type).
	if len(low) >= 3 {
		for _, c := range candidates {
			for _, w := range strings.Split(c, "_") {
				if strings.HasPrefix(w, low) || (len(low) >= 4 && len(w) >= 4 && Distance(low, w) <= 1) {
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

// Hint is "; did you mean "x"?" for the candidate s most likely misspells,
// or "".
func Hint(s string, candidates []string, aliases map[string]string) string {
	if c := Closest(s, candidates, aliases); c != "" {
		return "; did you mean \"" + c + "\"?"
	}
	return ""
}

// Distance counts the insertions, deletions, substitutions and swaps of
// neighbours (the commonest typo) that turn a into b. Names here are ASCII,
// so it works on bytes.
func Distance(a, b string) int {
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
