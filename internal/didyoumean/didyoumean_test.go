package didyoumean

import "testing"

func TestClosest(t *testing.T) {
	fields := []string{"vid", "name", "vlan_group", "status", "tags", "minimum", "network_type", "physical_network", "token_file", "page_size"}
	tests := []struct{ in, want string }{
		{"vlan_id", "vid"}, // an alias
		{"nmae", "name"},
		{"Status", "status"},
		{"group", "vlan_group"},
		{"min", "minimum"},
		{"type", "network_type"},
		{"tag", "tags"},
		{"tokn", "token_file"},
		{"pagesize", "page_size"},
		{"colour", ""},
	}
	for _, tt := range tests {
		if got := Closest(tt.in, fields, map[string]string{"vlan_id": "vid"}); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{{"", "abc", 3}, {"abc", "abc", 0}, {"vxaln", "vxlan", 1}, {"kitten", "sitting", 3}, {"ab", "", 2}}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
