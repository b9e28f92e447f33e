package emulator

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// filterFunc turns the values of one query parameter into a predicate,
// or returns the message django-filter gives for a bad value.
type filterFunc func(s *store, values []string) (func(*record) bool, string)

func invalidChoice(v string) string {
	return fmt.Sprintf("Select a valid choice. %s is not one of the available choices.", v)
}

// fExact matches any of the values exactly.
func fExact(get func(*record) string) filterFunc {
	return func(_ *store, values []string) (func(*record) bool, string) {
		return func(r *record) bool { return slices.Contains(values, get(r)) }, ""
	}
}

func fID() filterFunc {
	return func(_ *store, values []string) (func(*record) bool, string) {
		ids := map[string]bool{}
		for _, v := range values {
			if uuid.Validate(v) != nil {
				return nil, "Enter a valid UUID."
			}
			ids[strings.ToLower(v)] = true
		}
		return func(r *record) bool { return ids[r.id] }, ""
	}
}

// fPK matches records whose related object is one of values, given by
// id only, as a ModelMultipleChoiceFilter on a foreign key does.
func fPK(get func(*record) string) filterFunc {
	return func(_ *store, values []string) (func(*record) bool, string) {
		ids := map[string]bool{}
		for _, v := range values {
			if v == "null" {
				ids[""] = true
				continue
			}
			if uuid.Validate(v) != nil {
				return nil, fmt.Sprintf("“%s” is not a valid UUID.", v)
			}
			ids[strings.ToLower(v)] = true
		}
		return func(r *record) bool { return ids[get(r)] }, ""
	}
}

func fInt(get func(*record) int64) filterFunc {
	return func(_ *store, values []string) (func(*record) bool, string) {
		want := map[int64]bool{}
		for _, v := range values {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, "Enter a whole number."
			}
			want[n] = true
		}
		return func(r *record) bool { return want[get(r)] }, ""
	}
}

// resolveAll finds the records of ct that values name by id or by their
// unique field, as NaturalKeyOrPKMultipleChoiceFilter does.
func resolveAll(s *store, ct string, values []string) (map[string]bool, string) {
	t := s.tables[ct]
	ids := map[string]bool{}
	for _, v := range values {
		if v == "null" {
			ids[""] = true
			continue
		}
		if r := t.byID[strings.ToLower(v)]; r != nil {
			ids[r.id] = true
			continue
		}
		named := s.named(t, v)
		if len(named) == 0 {
			return nil, invalidChoice(v)
		}
		for _, r := range named {
			ids[r.id] = true
		}
	}
	return ids, ""
}

// fRef matches records whose related object of type ct is one of values.
func fRef(ct string, get func(*record) string) filterFunc {
	return func(s *store, values []string) (func(*record) bool, string) {
		ids, msg := resolveAll(s, ct, values)
		if msg != "" {
			return nil, msg
		}
		return func(r *record) bool { return ids[get(r)] }, ""
	}
}

// fTree matches records at one of the locations named or below them.
func fTree(get func(*record) []string) filterFunc {
	return func(s *store, values []string) (func(*record) bool, string) {
		ids, msg := resolveAll(s, ctLocation, values)
		if msg != "" {
			return nil, msg
		}
		under := func(id string) bool {
			for seen := 0; id != "" && seen < 64; seen++ {
				if ids[id] {
					return true
				}
				l := s.get(ctLocation, id)
				if l == nil {
					return false
				}
				id = l.parent
			}
			return false
		}
		return func(r *record) bool {
			for _, l := range get(r) {
				if under(l) {
					return true
				}
			}
			return false
		}, ""
	}
}

// fTags matches records carrying every tag named (TagFilter is conjoined).
func fTags() filterFunc {
	return func(s *store, values []string) (func(*record) bool, string) {
		ids, msg := resolveAll(s, ctTag, values)
		if msg != "" {
			return nil, msg
		}
		return func(r *record) bool {
			for id := range ids {
				if !slices.Contains(r.tags, id) {
					return false
				}
			}
			return true
		}, ""
	}
}

// fContentTypes matches records allowing one of the content types;
// choices are the types the kind may allow.
func fContentTypes(choices func(s *store, ct string) bool) filterFunc {
	return func(s *store, values []string) (func(*record) bool, string) {
		for _, v := range values {
			if !choices(s, v) {
				return nil, invalidChoice(v)
			}
		}
		return func(r *record) bool {
			for _, v := range values {
				if slices.Contains(r.contentTypes, v) {
					return true
				}
			}
			return false
		}, ""
	}
}

// fPrefix matches prefixes equal to one of the values (host bits ignored).
func fPrefix(get func(*record) netip.Prefix) filterFunc {
	return func(_ *store, values []string) (func(*record) bool, string) {
		var want []netip.Prefix
		for _, v := range values {
			p, err := netip.ParsePrefix(v)
			if err != nil {
				return nil, "Invalid IP address format: " + v
			}
			want = append(want, p.Masked())
		}
		return func(r *record) bool { return slices.Contains(want, get(r).Masked()) }, ""
	}
}

// fAddress matches IP addresses by host, and by mask when one is given.
func fAddress() filterFunc {
	return func(_ *store, values []string) (func(*record) bool, string) {
		var hosts []netip.Addr
		var full []netip.Prefix
		for _, v := range values {
			if p, err := netip.ParsePrefix(v); err == nil {
				full = append(full, p)
				continue
			}
			a, err := netip.ParseAddr(v)
			if err != nil {
				return nil, "Invalid IP address format: " + v
			}
			hosts = append(hosts, a)
		}
		return func(r *record) bool {
			return slices.Contains(hosts, r.net.Addr()) || slices.Contains(full, r.net)
		}, ""
	}
}

// customFieldFilter filters by a custom field's value. Text fields with
// the default "loose" logic match case-insensitive substrings, as in
// Nautobot; "exact" matches equal values.
func customFieldFilter(def *record, values []string) (func(*record) bool, string) {
	loose := def.filterLogic != "exact" && (def.typ == "text" || def.typ == "url" || def.typ == "markdown")
	return func(r *record) bool {
		got := r.cf[def.name]
		for _, v := range values {
			if v == "null" && got == nil {
				return true
			}
			if got == nil {
				continue
			}
			s := scalar(got)
			if n, ok := got.(int64); ok {
				s = strconv.FormatInt(n, 10)
			}
			if loose && strings.Contains(strings.ToLower(s), strings.ToLower(v)) || s == v {
				return true
			}
		}
		return false
	}, ""
}

func common(extra map[string]filterFunc) map[string]filterFunc {
	m := map[string]filterFunc{"id": fID(),
		"last_updated__gte": fUpdated(func(u, t time.Time) bool { return !u.Before(t) }),
		"last_updated__lte": fUpdated(func(u, t time.Time) bool { return !u.After(t) })}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// fBool matches a boolean field, as django-filter's BooleanFilter reads it.
func fBool(get func(*record) bool) filterFunc {
	return func(_ *store, values []string) (func(*record) bool, string) {
		want := map[bool]bool{}
		for _, v := range values {
			switch strings.ToLower(v) {
			case "true", "1", "yes":
				want[true] = true
			case "false", "0", "no":
				want[false] = true
			default:
				return nil, invalidChoice(v)
			}
		}
		return func(r *record) bool { return want[get(r)] }, ""
	}
}

// fSearch is the q filter: a case-insensitive substring of any field.
func fSearch(get func(*record) []string) filterFunc {
	return func(_ *store, values []string) (func(*record) bool, string) {
		return func(r *record) bool {
			for _, v := range values {
				for _, f := range get(r) {
					if strings.Contains(strings.ToLower(f), strings.ToLower(strings.TrimSpace(v))) {
						return true
					}
				}
			}
			return false
		}, ""
	}
}

// fParent matches prefixes by parent, named by id or by network, as
// Nautobot's PrefixFilter does.
func fParent() filterFunc {
	return func(s *store, values []string) (func(*record) bool, string) {
		ids := map[string]bool{}
		var nets []netip.Prefix
		for _, v := range values {
			if uuid.Validate(v) == nil {
				ids[strings.ToLower(v)] = true
				continue
			}
			p, err := netip.ParsePrefix(v)
			if err != nil {
				return nil, invalidChoice(v)
			}
			nets = append(nets, p.Masked())
		}
		return func(r *record) bool {
			if ids[r.parent] {
				return true
			}
			p := s.get(ctPrefix, r.parent)
			return p != nil && slices.Contains(nets, p.net)
		}, ""
	}
}

// fOnLine3 is a filter that exists from Nautobot 3.0 on.
func fOnLine3(f filterFunc) filterFunc {
	return func(s *store, values []string) (func(*record) bool, string) {
		if !s.version.atLeast(3, 0) {
			return nil, "Unknown filter field"
		}
		return f(s, values)
	}
}

// fUpdated compares last_updated with a time, as the created/last_updated
// lookups of Nautobot's base filter set do: the last value given counts,
// an empty one filters nothing.
func fUpdated(cmp func(updated, t time.Time) bool) filterFunc {
	return func(_ *store, values []string) (func(*record) bool, string) {
		v := values[len(values)-1]
		if v == "" {
			return func(*record) bool { return true }, ""
		}
		t, ok := parseFormTime(v)
		if !ok {
			return nil, "Enter a valid date/time."
		}
		return func(r *record) bool { return cmp(r.updated, t) }, ""
	}
}
