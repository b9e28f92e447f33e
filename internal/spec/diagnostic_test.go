package spec

import "testing"

func TestDiagnosticString(t *testing.T) {
	tests := []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{File: "a.yaml", Line: 3, Col: 7, Field: "vid", Message: "bad"}, "a.yaml:3:7: vid: bad"},
		{Diagnostic{File: "a.yaml", Line: 1, Col: 1, Message: "YAML syntax error: x"}, "a.yaml:1:1: YAML syntax error: x"},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestDiagnosticsSortedAndError(t *testing.T) {
	ds := Diagnostics{
		{File: "b.yaml", Line: 1, Col: 1, Message: "z"},
		{File: "a.yaml", Line: 10, Col: 1, Message: "y"},
		{File: "a.yaml", Line: 2, Col: 5, Message: "x"},
		{File: "a.yaml", Line: 2, Col: 5, Message: "x"},
		{File: "a.yaml", Line: 2, Col: 3, Message: "w"},
	}.sorted()
	var err error = ds
	want := "a.yaml:2:3: w\na.yaml:2:5: x\na.yaml:10:1: y\nb.yaml:1:1: z"
	if got := err.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestSuggest(t *testing.T) {
	fields := []string{"vid", "name", "vlan_group", "status", "tags", "minimum", "network_type", "physical_network"}
	tests := []struct{ in, want string }{
		{"vlan_id", "vid"},
		{"nmae", "name"},
		{"Status", "status"},
		{"group", "vlan_group"},
		{"min", "minimum"},
		{"type", "network_type"},
		{"physnet", "physical_network"},
		{"tag", "tags"},
		{"colour", ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.in, fields); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
