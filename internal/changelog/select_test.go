package changelog

import (
	"net/url"
	"slices"
	"testing"
)

// TestUnfound: the owner's read after a reread by ids asks only for the
// ids the scope's read did not return, and is not sent when it returned
// them all.
func TestUnfound(t *testing.T) {
	tests := []struct {
		name   string
		extra  url.Values
		found  []string
		want   url.Values
		wantOK bool
	}{
		{name: "a whole read", extra: nil, found: []string{"1"}, want: nil, wantOK: true},
		{name: "a check by stamp", extra: url.Values{StampFilter: {"t"}}, found: []string{"1"}, want: url.Values{StampFilter: {"t"}}, wantOK: true},
		{name: "every id found", extra: url.Values{"id": {"1", "2"}}, found: []string{"2", "1"}, wantOK: false},
		{name: "some ids left the scope", extra: url.Values{"id": {"1", "2", "3"}, "fields": {"id"}}, found: []string{"2"},
			want: url.Values{"id": {"1", "3"}, "fields": {"id"}}, wantOK: true},
		{name: "nothing found", extra: url.Values{"id": {"1"}}, want: url.Values{"id": {"1"}}, wantOK: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := url.Values{}
			for k, v := range tt.extra {
				before[k] = slices.Clone(v)
			}
			got, ok := Unfound(tt.extra, slices.Values(tt.found))
			if ok != tt.wantOK || len(got) != len(tt.want) {
				t.Fatalf("Unfound() = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
			for k, v := range tt.want {
				if !slices.Equal(got[k], v) {
					t.Errorf("Unfound()[%s] = %v, want %v", k, got[k], v)
				}
			}
			for k, v := range before {
				if !slices.Equal(tt.extra[k], v) {
					t.Errorf("Unfound changed its argument's %s to %v", k, tt.extra[k])
				}
			}
		})
	}
}
