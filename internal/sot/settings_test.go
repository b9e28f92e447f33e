package sot

import (
	"bytes"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
	"github.com/ipsync/ipsync/internal/httpapi"
)

func TestWithDefaults(t *testing.T) {
	defaults := Settings{URL: "https://nb.example.com", Token: "t", PageSize: 1000, BatchSize: 250, Concurrency: 4,
		Tag: "managed-by-ipsync", OwnerField: "ipsync_owner", VNIField: "vni", Timeout: 60 * time.Second, MaxRetries: 5}
	for _, tc := range []struct {
		name string
		in   Settings
		want Settings
		errs []string // a word of each error
	}{
		{name: "defaults", in: Settings{URL: "https://nb.example.com", Token: "t"}, want: defaults},
		{name: "set values kept",
			in: Settings{URL: "http://nb:8080/", Token: "t", PageSize: 50, BatchSize: 10, Concurrency: 1, Tag: "x",
				OwnerField: "o", VNIField: "v", Timeout: time.Second, MaxRetries: 2, MaxWait: time.Minute},
			want: Settings{URL: "http://nb:8080/", Token: "t", PageSize: 50, BatchSize: 10, Concurrency: 1, Tag: "x",
				OwnerField: "o", VNIField: "v", Timeout: time.Second, MaxRetries: 2, MaxWait: time.Minute}},
		{name: "negative retries are none", in: Settings{URL: "https://nb.example.com", Token: "t", MaxRetries: -1},
			want: func() Settings { s := defaults; s.MaxRetries = 0; return s }()},
		{name: "negative sizes are defaults",
			in:   Settings{URL: "https://nb.example.com", Token: "t", PageSize: -1, BatchSize: -1, Concurrency: -1, Timeout: -1},
			want: defaults},
		{name: "no url, no token", in: Settings{}, want: func() Settings { s := defaults; s.URL, s.Token = "", ""; return s }(),
			errs: []string{`netbox url ""`, "netbox token is empty"}},
		{name: "no scheme", in: Settings{URL: "nb.example.com", Token: "t"},
			want: func() Settings { s := defaults; s.URL = "nb.example.com"; return s }(), errs: []string{"netbox url"}},
		{name: "another scheme", in: Settings{URL: "ftp://nb", Token: "t"},
			want: func() Settings { s := defaults; s.URL = "ftp://nb"; return s }(), errs: []string{"netbox url"}},
		{name: "no host", in: Settings{URL: "https://", Token: "t"},
			want: func() Settings { s := defaults; s.URL = "https://"; return s }(), errs: []string{"netbox url"}},
		{name: "unparsable", in: Settings{URL: "https://nb/%zz", Token: "t"},
			want: func() Settings { s := defaults; s.URL = "https://nb/%zz"; return s }(), errs: []string{"netbox url"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.in
			errs := s.WithDefaults("netbox")
			if s != tc.want {
				t.Errorf("WithDefaults = %+v, want %+v", s, tc.want)
			}
			if len(errs) != len(tc.errs) {
				t.Fatalf("errors = %v, want %d", errs, len(tc.errs))
			}
			for i, err := range errs {
				if !strings.Contains(err.Error(), tc.errs[i]) {
					t.Errorf("error %d = %v, want it saying %q", i, err, tc.errs[i])
				}
			}
		})
	}
}

func TestConnect(t *testing.T) {
	s := Settings{URL: "https://nb.example.com:8443/sub/", Token: "t", InsecureSkipVerify: true}
	s.WithDefaults("netbox")
	var log bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&log, nil))
	cfg, tr := Connect(s, "netbox", logger, nil, httpapi.Config{Auth: "Token t", Identify: true})
	if cfg.Base.String() != "https://nb.example.com:8443/sub" || cfg.Server != "netbox" || cfg.Auth != "Token t" || !cfg.Identify {
		t.Errorf("Connect config = %+v", cfg)
	}
	if cfg.Timeout != 60*time.Second || cfg.MaxRetries != 5 || cfg.MaxWait != 0 {
		t.Errorf("Connect limits = %v, %d, %v", cfg.Timeout, cfg.MaxRetries, cfg.MaxWait)
	}
	h, ok := tr.HTTP.Transport.(*http.Transport)
	if !ok || !h.TLSClientConfig.InsecureSkipVerify || h.MaxIdleConnsPerHost != 5 || cfg.HTTP != tr.HTTP {
		t.Errorf("Connect transport = %+v", tr.HTTP.Transport)
	}
	if _, ok := tr.Progress.(NoProgress); !ok || tr.Clock == nil || cfg.Clock != tr.Clock {
		t.Errorf("Connect defaults = %+v", tr)
	}
	if !strings.Contains(log.String(), "TLS certificate verification is off") || !strings.Contains(log.String(), "host=nb.example.com:8443") {
		t.Errorf("log = %q, want the TLS warning with the server's host", log.String())
	}

	own := &http.Client{}
	clk := clocktest.New(clocktest.Start)
	prog := &progressLog{}
	s.InsecureSkipVerify = false
	cfg, tr = Connect(s, "netbox", nil, []Option{WithHTTPClient(own), WithClock(clk), WithProgress(prog)}, httpapi.Config{})
	if cfg.HTTP != own || tr.HTTP != own || cfg.Clock != clk || tr.Progress != Progress(prog) || cfg.Log == nil {
		t.Errorf("Connect with options = %+v, %+v", cfg, tr)
	}
}
