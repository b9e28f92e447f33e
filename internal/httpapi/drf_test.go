package httpapi

import "testing"

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		body string
		want string
	}{
		{`{"name": ["This field is required."], "vid": ["Enter a whole number.", "Too big."]}`,
			"name: This field is required.; vid: Enter a whole number. Too big."},
		{`{"detail": "Not found."}`, "Not found."},
		{`{"detail": "Invalid.", "code": "x"}`, "code: x; detail: Invalid."},
		{`[{}, {"prefix": ["Duplicate prefix found"]}, {"name": ["x"]}]`, "prefix: Duplicate prefix found"},
		{`{"non_field_errors": ["The fields vlan_group, vid must make a unique set."]}`,
			"non_field_errors: The fields vlan_group, vid must make a unique set."},
		{`{"status": "bad"}`, "status: bad"},
		{`<html>Bad Gateway</html>`, "<html>Bad Gateway</html>"},
		{`[]`, "[]"},
	}
	for _, tt := range tests {
		if got := ErrorMessage([]byte(tt.body)); got != tt.want {
			t.Errorf("ErrorMessage(%s) = %q, want %q", tt.body, got, tt.want)
		}
	}
}
