package netbox

import (
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/sot"
)

func TestConfig(t *testing.T) {
	const v2 = "nbt_OC0F9AZcn8bV.3JtZVoRzQRYVZOifIIiy9LJX4fsXxGJacHjHist5"
	const v1 = "0123456789abcdef0123456789abcdef01234567"
	cases := []struct {
		name     string
		cfg      Config
		wantErr  string // a part of the error, "" for none
		wantAuth string
	}{
		{"v2 token is a bearer", Config{Settings: sot.Settings{URL: "https://netbox.example.com", Token: v2}}, "", "Bearer " + v2},
		{"v1 token", Config{Settings: sot.Settings{URL: "http://127.0.0.1:8000", Token: v1}}, "", "Token " + v1},
		{"no url", Config{Settings: sot.Settings{Token: v2}}, "netbox url", ""},
		{"url without scheme", Config{Settings: sot.Settings{URL: "netbox.example.com", Token: v2}}, "want http(s)://host", ""},
		{"no token", Config{Settings: sot.Settings{URL: "http://x"}}, "token is empty", ""},
		{"malformed token", Config{Settings: sot.Settings{URL: "http://x", Token: "nbt_short.x"}}, `"nbt_<key>.<secret>"`, ""},
		{"bad location scope", Config{Settings: sot.Settings{URL: "http://x", Token: v2}, LocationScope: "region"}, `location scope "region"`, ""},
		{"location scope", Config{Settings: sot.Settings{URL: "http://x", Token: v2}, LocationScope: "location"}, "", "Bearer " + v2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.cfg.withDefaults()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("withDefaults() = %v, want no error", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("withDefaults() = %v, want an error with %q", err, tc.wantErr)
			case tc.wantErr != "":
				return
			}
			if a := got.auth(); a != tc.wantAuth {
				t.Errorf("auth() = %q, want %q", a, tc.wantAuth)
			}
			if got.PageSize != 1000 || got.BatchSize != 250 || got.Concurrency != 4 || got.MaxRetries != 5 ||
				got.Tag != "managed-by-ipsync" || got.OwnerField != "ipsync_owner" || got.VNIField != "vni" || got.RIR != "private" {
				t.Errorf("defaults = %+v", got)
			}
		})
	}
}

func TestETag(t *testing.T) {
	for _, tc := range []struct{ version, want string }{
		{"2026-12-03T14:51:27.950110Z", `W/"2026-12-03T14:51:27.950110+00:00"`},
		// A NetBox with TIME_ZONE Europe/Berlin: the JSON in local time,
		// the ETag from the UTC instant the database keeps.
		{"2026-12-03T15:51:27.950110+01:00", `W/"2026-12-03T14:51:27.950110+00:00"`},
		{"2026-07-03T16:51:27.000100+02:00", `W/"2026-07-03T14:51:27.000100+00:00"`},
		{"2026-12-03T20:21:27.5+05:30", `W/"2026-12-03T14:51:27.500000+00:00"`},
		{"2026-12-03T14:51:27Z", `W/"2026-12-03T14:51:27+00:00"`},
		{"2026-12-04T00:51:27+10:00", `W/"2026-12-03T14:51:27+00:00"`},
		{"not a time", `W/"not a time"`},
	} {
		if got := ETag(tc.version); got != tc.want {
			t.Errorf("ETag(%q) = %s, want %s", tc.version, got, tc.want)
		}
	}
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"a11-12-network", "a11-12-network"},
		{"RT Full", "rt-full"},
		{"leaf/pair 12", "leaf-pair-12"},
		{"under_score", "under_score"},
	} {
		if got := Slug(tc.name); got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
