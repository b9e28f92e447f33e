package emulator

import (
	"slices"
	"strconv"
	"strings"
)

// expandRange expands a VLAN group range ("100-199,300") as Nautobot's
// parse_numeric_range does, into sorted, merged intervals. Parts may
// overlap and come in any order; a part whose end is below its start
// adds nothing. A part that is not a number or a range raises an
// exception Nautobot lets through, which is returned as a fault.
func expandRange(s string) ([][2]int, errorDict) {
	var iv [][2]int
	for _, part := range strings.Split(s, ",") {
		loS, hiS := part, part
		if a, b, ok := strings.Cut(part, "-"); ok && !strings.Contains(b, "-") {
			if a == "" || b == "" {
				return nil, fault("TypeError", "Input value must be a string using a range format.")
			}
			loS, hiS = a, b
		}
		lo, f := pyInt(loS)
		if f != nil {
			return nil, f
		}
		hi, f := pyInt(hiS)
		if f != nil {
			return nil, f
		}
		if hi >= lo {
			iv = append(iv, [2]int{lo, hi})
		}
	}
	slices.SortFunc(iv, func(a, b [2]int) int { return a[0] - b[0] })
	var merged [][2]int
	for _, x := range iv {
		if n := len(merged); n > 0 && x[0] <= merged[n-1][1]+1 {
			merged[n-1][1] = max(merged[n-1][1], x[1])
			continue
		}
		merged = append(merged, x)
	}
	return merged, nil
}

// pyInt is Python's int() of a stripped string, with its ValueError.
func pyInt(s string) (int, errorDict) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fault("ValueError", "invalid literal for int() with base 10: "+pyStr(s))
	}
	return n, nil
}

// formatRange writes intervals as Nautobot stores a range: "100-250,300".
func formatRange(iv [][2]int) string {
	parts := make([]string, len(iv))
	for i, x := range iv {
		if x[0] == x[1] {
			parts[i] = strconv.Itoa(x[0])
		} else {
			parts[i] = strconv.Itoa(x[0]) + "-" + strconv.Itoa(x[1])
		}
	}
	return strings.Join(parts, ",")
}

// checkRange validates a range as PositiveRangeNumberTextField does: the
// field errors, and the intervals.
func checkRange(s string) ([][2]int, []string, errorDict) {
	iv, f := expandRange(s)
	if f != nil {
		return nil, nil, f
	}
	switch {
	case len(iv) == 0:
		return iv, []string{"This field cannot be blank."}, nil
	case iv[0][0] < 1 || iv[len(iv)-1][1] > 4094:
		return iv, []string{"Invalid value. Specify a range value between 1-4094"}, nil
	}
	return iv, nil, nil
}

func inRanges(iv [][2]int, n int) bool {
	for _, x := range iv {
		if n >= x[0] && n <= x[1] {
			return true
		}
	}
	return false
}
