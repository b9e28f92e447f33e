package sot

import (
	"fmt"
	"testing"
)

type row struct{ ID string }

func (r *row) ObjectID() string { return r.ID }

// TestPastLast: the rows a page of a growing list adds are those after the
// last row read; rows out of order past that are a server not paging by id.
func TestPastLast(t *testing.T) {
	rows := func(ids ...string) []row {
		out := make([]row, len(ids))
		for i, id := range ids {
			out[i].ID = id
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		read, page []row
		want       []string
		fails      bool
	}{
		{"first page", nil, rows("a", "b"), []string{"a", "b"}, false},
		{"next page", rows("a", "b"), rows("c", "d"), []string{"c", "d"}, false},
		{"shifted by two rows added behind", rows("a", "c", "e"), rows("c", "e", "f"), []string{"f"}, false},
		{"page of rows already read", rows("a", "b"), rows("a", "b"), []string{}, false},
		{"not by id", rows("a", "b"), rows("d", "c"), nil, true},
		{"an old row after new ones", rows("a", "c"), rows("d", "b"), nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := pastLast[row, string](tc.read, tc.page)
			if tc.fails {
				if err == nil {
					t.Errorf("pastLast = %v, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ids := []string{}
			for _, w := range got {
				ids = append(ids, w.ID)
			}
			if fmt.Sprint(ids) != fmt.Sprint(tc.want) {
				t.Errorf("pastLast = %v, want %v", ids, tc.want)
			}
		})
	}
}
