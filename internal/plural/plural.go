// Package plural writes counts of things in English: "1 object",
// "2 objects", never "1 objects" or "object(s)".
package plural

import "strconv"

// Of is n with noun, in the plural unless n is 1. Nouns here take an s.
func Of(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
