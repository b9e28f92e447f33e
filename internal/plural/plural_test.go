package plural

import "testing"

func TestOf(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{{0, "0 objects"}, {1, "1 object"}, {2, "2 objects"}, {62, "62 objects"}}
	for _, tt := range tests {
		if got := Of(tt.n, "object"); got != tt.want {
			t.Errorf("Of(%d, object) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
