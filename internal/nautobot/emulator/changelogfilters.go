package emulator

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// changeFilters are ObjectChangeFilterSet's filters the emulator serves:
// exact values, and the time lookups a client follows the log with.
func changeFilters(s *store) map[string]listFilter[*change] {
	uuids := func(get func(*change) string) listFilter[*change] {
		return func(values []string) (func(*change) bool, string) {
			want := map[string]bool{}
			for _, v := range values {
				if uuid.Validate(v) != nil {
					return nil, "Enter a valid UUID."
				}
				want[strings.ToLower(v)] = true
			}
			return func(c *change) bool { return want[get(c)] }, ""
		}
	}
	exact := func(get func(*change) string) listFilter[*change] {
		return func(values []string) (func(*change) bool, string) {
			return func(c *change) bool { return slices.Contains(values, get(c)) }, ""
		}
	}
	return map[string]listFilter[*change]{
		"id":                     uuids(func(c *change) string { return c.id }),
		"changed_object_id":      uuids(func(c *change) string { return c.objectID }),
		"request_id":             uuids(func(c *change) string { return c.requestID }),
		"user_name":              exact(func(*change) string { return userName }),
		"object_repr":            exact(func(c *change) string { return c.repr }),
		"action":                 fAction,
		"changed_object_type":    fChangedType,
		"changed_object_type_id": s.fChangedTypeID,
		"time":                   fTime(func(c, t time.Time) bool { return c.Equal(t) }),
		"time__gte":              fTime(func(c, t time.Time) bool { return !c.Before(t) }),
		"time__gt":               fTime(func(c, t time.Time) bool { return c.After(t) }),
		"time__lte":              fTime(func(c, t time.Time) bool { return !c.After(t) }),
		"time__lt":               fTime(func(c, t time.Time) bool { return c.Before(t) }),
		"q": func(values []string) (func(*change) bool, string) {
			return func(c *change) bool {
				for _, v := range values {
					v = strings.ToLower(strings.TrimSpace(v))
					if strings.Contains(userName, v) || strings.Contains(strings.ToLower(c.repr), v) {
						return true
					}
				}
				return false
			}, ""
		},
	}
}

func fAction(values []string) (func(*change) bool, string) {
	for _, v := range values {
		if actionLabels[v] == "" {
			return nil, invalidChoice(v)
		}
	}
	return func(c *change) bool { return slices.Contains(values, c.action) }, ""
}

// fChangedType is ContentTypeFilter: one "app.model", the last given,
// matched without regard to case; one that names no type matches nothing,
// an empty one filters nothing.
func fChangedType(values []string) (func(*change) bool, string) {
	want := strings.ToLower(values[len(values)-1])
	return func(c *change) bool { return want == "" || c.ct == want }, ""
}

// fChangedTypeID selects by content type id. On 3.x it is a multiple
// choice filter, so repeated ids are OR'd; on 2.4 it is a plain choice
// filter, which takes the last id given.
func (s *store) fChangedTypeID(values []string) (func(*change) bool, string) {
	line3 := s.version.atLeast(3, 0)
	if !line3 {
		values = values[len(values)-1:]
	}
	want := map[string]bool{}
	for _, v := range values {
		c, ok := s.contentTypeByID(v)
		_, err := strconv.Atoi(v)
		isInt := err == nil
		switch {
		case !ok && !line3:
			return nil, "Select a valid choice. That choice is not one of the available choices."
		case !ok && !isInt:
			return nil, "“" + v + "” is not a valid value."
		case !ok:
			return nil, invalidChoice(v)
		}
		want[c.name()] = true
	}
	return func(c *change) bool { return want[c.ct] }, ""
}

// fTime is a time lookup. Django's DateTimeFilter takes the last value
// given, and an empty one filters nothing; naive times are the server's
// zone, UTC.
func fTime(cmp func(changed, t time.Time) bool) listFilter[*change] {
	return func(values []string) (func(*change) bool, string) {
		v := values[len(values)-1]
		if v == "" {
			return func(*change) bool { return true }, ""
		}
		t, ok := parseFormTime(v)
		if !ok {
			return nil, "Enter a valid date/time."
		}
		return func(c *change) bool { return cmp(c.time, t) }, ""
	}
}

// formTimeLayouts are the forms Django's DateTimeField accepts: ISO 8601
// with T or a space, any fraction of a second, a zone or none, or a date.
var formTimeLayouts = []string{
	"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999", "2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02",
}

func parseFormTime(v string) (time.Time, bool) {
	v = strings.Replace(strings.TrimSpace(v), " ", "T", 1)
	for _, l := range formTimeLayouts {
		if t, err := time.ParseInLocation(l, v, time.UTC); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
