package resource

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// VIDRange is an inclusive range of VLAN ids.
type VIDRange struct{ Lo, Hi uint16 }

// VIDRanges is a VLAN group's range as Nautobot writes it: "100-199,300-310".
type VIDRanges []VIDRange

// MinVID and MaxVID bound 802.1Q VLAN ids usable for VLANs.
const (
	MinVID = 1
	MaxVID = 4094
)

// ParseVIDRanges parses "100-199,300,310-320". It rejects malformed parts,
// bounds outside 1-4094, lo > hi and overlaps, so a parsed value is always a
// sorted, disjoint list.
func ParseVIDRanges(s string) (VIDRanges, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty range")
	}
	var out VIDRanges
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		loS, hiS, isRange := strings.Cut(part, "-")
		lo, err := parseVID(loS)
		if err != nil {
			return nil, fmt.Errorf("range part %q: %w", part, err)
		}
		hi := lo
		if isRange {
			if hi, err = parseVID(hiS); err != nil {
				return nil, fmt.Errorf("range part %q: %w", part, err)
			}
		}
		if lo > hi {
			return nil, fmt.Errorf("range part %q: start %d is greater than end %d", part, lo, hi)
		}
		out = append(out, VIDRange{lo, hi})
	}
	slices.SortFunc(out, func(a, b VIDRange) int { return int(a.Lo) - int(b.Lo) })
	for i := 1; i < len(out); i++ {
		if out[i].Lo <= out[i-1].Hi {
			return nil, fmt.Errorf("range parts %s and %s overlap", out[i-1], out[i])
		}
	}
	return out, nil
}

func parseVID(s string) (uint16, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if n < MinVID || n > MaxVID {
		return 0, fmt.Errorf("vid %d outside %d-%d", n, MinVID, MaxVID)
	}
	return uint16(n), nil
}

// Contains reports whether vid lies in one of the ranges.
func (r VIDRanges) Contains(vid uint16) bool {
	for _, x := range r {
		if vid >= x.Lo && vid <= x.Hi {
			return true
		}
	}
	return false
}

func (r VIDRange) String() string {
	if r.Lo == r.Hi {
		return strconv.Itoa(int(r.Lo))
	}
	return fmt.Sprintf("%d-%d", r.Lo, r.Hi)
}

func (r VIDRanges) String() string {
	parts := make([]string, len(r))
	for i, x := range r {
		parts[i] = x.String()
	}
	return strings.Join(parts, ",")
}

// orAll renders r with no ranges as the whole 1-4094, which is what a VLAN
// group without a range means in Nautobot, so the two never differ.
func (r VIDRanges) orAll() string {
	if len(r) == 0 {
		return fmt.Sprintf("%d-%d", MinVID, MaxVID)
	}
	return r.String()
}
