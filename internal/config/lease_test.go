package config

import (
	"strings"
	"testing"
)

func TestLeaseTiming(t *testing.T) {
	tests := []struct {
		name    string
		doc     string
		wantErr string // a fragment the error must contain; "" means valid
	}{
		{name: "defaults", doc: ""},
		{name: "ttl of three renewals", doc: "agent: {lease_ttl: 90s, lease_renew: 30s}\n"},
		{name: "only ttl, too short for the default renewal", doc: "agent:\n  lease_ttl: 1m\n",
			wantErr: "config:2:14: agent.lease_ttl: 1m0s is less than 3 × agent.lease_renew (30s)"},
		{name: "renewal too slow for the ttl", doc: "agent:\n  lease_ttl: 2m\n  lease_renew: 1m\n",
			wantErr: "config:2:14: agent.lease_ttl: 2m0s is less than 3 × agent.lease_renew (1m0s)"},
		{name: "zero renewal", doc: "agent:\n  lease_renew: 0s\n", wantErr: "config:2:16: agent.lease_renew: 0s: must be positive"},
		{name: "negative ttl", doc: "agent: {lease_ttl: -1m}\n", wantErr: "agent.lease_ttl: -1m0s: must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Parse(%q) = %v, want no error", tt.doc, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Parse(%q) = %v, want an error containing %q", tt.doc, err, tt.wantErr)
			}
		})
	}
}
