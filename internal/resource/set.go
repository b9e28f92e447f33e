package resource

import (
	"slices"
	"strings"
)

// NormalizeSet sorts and de-duplicates a set-valued field in place. The
// peers return tags and locations in whatever order they were stored; storing
// them sorted means two equal sets always compare equal.
func NormalizeSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// SetEqual compares two sets regardless of order or repetition.
func SetEqual(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	if slices.IsSorted(a) && slices.IsSorted(b) && len(a) == len(b) {
		return slices.Equal(a, b)
	}
	return slices.Equal(NormalizeSet(slices.Clone(a)), NormalizeSet(slices.Clone(b)))
}

// SetString renders a set for field diffs: sorted, comma separated.
func SetString(s []string) string {
	if !slices.IsSorted(s) {
		s = NormalizeSet(slices.Clone(s))
	}
	return strings.Join(s, ",")
}
