package nautobottest

import (
	"slices"
	"strconv"
	"strings"
)

// normalizeRange parses a VLAN group range ("100-199,300") the way
// Nautobot's PositiveRangeNumberTextField does: parts may overlap and come
// in any order; the result is sorted and compressed. It returns the
// intervals too, or a message.
func normalizeRange(s string) (string, [][2]int, string) {
	var iv [][2]int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		loS, hiS, isRange := strings.Cut(part, "-")
		lo, err := strconv.Atoi(strings.TrimSpace(loS))
		hi := lo
		if err == nil && isRange {
			hi, err = strconv.Atoi(strings.TrimSpace(hiS))
		}
		if err != nil || lo < 0 || hi < lo {
			return "", nil, "Invalid value. Specify a value using non-negative integers in a range format (i.e. '10-20')."
		}
		iv = append(iv, [2]int{lo, hi})
	}
	if len(iv) == 0 {
		return "", nil, "Invalid value. Specify a value using non-negative integers in a range format (i.e. '10-20')."
	}
	slices.SortFunc(iv, func(a, b [2]int) int { return a[0] - b[0] })
	merged := iv[:1]
	for _, x := range iv[1:] {
		last := &merged[len(merged)-1]
		if x[0] <= last[1]+1 {
			last[1] = max(last[1], x[1])
			continue
		}
		merged = append(merged, x)
	}
	if merged[0][0] < 1 || merged[len(merged)-1][1] > 4094 {
		return "", nil, "Invalid value. Specify a range value between 1-4094"
	}
	parts := make([]string, len(merged))
	for i, x := range merged {
		if x[0] == x[1] {
			parts[i] = strconv.Itoa(x[0])
		} else {
			parts[i] = strconv.Itoa(x[0]) + "-" + strconv.Itoa(x[1])
		}
	}
	return strings.Join(parts, ","), merged, ""
}

func inRanges(iv [][2]int, n int) bool {
	for _, x := range iv {
		if n >= x[0] && n <= x[1] {
			return true
		}
	}
	return false
}
