package lease

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	valid := regexp.MustCompile(`^[\p{L}\p{N}_-]+$`)
	names := []string{"ipsync-lease:neutron:a11", "ipsync-lease:neutron:a.11", "ipsync-lease:neutron:A11",
		"ipsync-lease:neutron:" + strings.Repeat("x", 200), "ipsync-lease:neutron:zürich"}
	seen := map[string]string{}
	for _, name := range names {
		s := slug(name)
		if !valid.MatchString(s) || len(s) > maxSlug {
			t.Errorf("slug(%q) = %q: want at most %d letters, digits, _ and -", name, s, maxSlug)
		}
		if other, ok := seen[s]; ok {
			t.Errorf("slug(%q) = slug(%q) = %q, want them apart", name, other, s)
		}
		seen[s] = name
	}
	if got := slug("ipsync-lease:neutron:a11"); !strings.HasPrefix(got, "ipsync-lease-neutron-a11-") {
		t.Errorf("slug = %q, want it readable as the name", got)
	}
}

func TestObjectID(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{`"5b1c0f5e-0b7d-4a57-9d1b-0c1c4a1f3e2a"`, "5b1c0f5e-0b7d-4a57-9d1b-0c1c4a1f3e2a", false},
		{`42`, "42", false},
		{`{"id": 1}`, "", true},
	}
	for _, tt := range tests {
		var got objectID
		err := json.Unmarshal([]byte(tt.in), &got)
		if (err != nil) != tt.wantErr || string(got) != tt.want {
			t.Errorf("unmarshal %s = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
