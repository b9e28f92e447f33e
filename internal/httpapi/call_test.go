package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/ipsync/ipsync/internal/clock/clocktest"
)

func TestCall(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		answer     string
		in         any
		wantBody   string
		wantStatus int
		wantOut    string
		wantErr    bool
	}{
		{name: "a body sent, the answer read", status: 201, answer: `{"name":"lease"}`, in: map[string]string{"name": "lease"},
			wantBody: `{"name":"lease"}`, wantStatus: 201, wantOut: "lease"},
		{name: "no body", status: 200, answer: `{"name":"x"}`, wantStatus: 200, wantOut: "x"},
		{name: "a refusal is its status and an APIError", status: 400, answer: `{"name":["taken"]}`, in: map[string]string{"name": "lease"},
			wantBody: `{"name":"lease"}`, wantStatus: 400, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				body = string(b)
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.answer))
			}))
			t.Cleanup(srv.Close)
			c := newClient(t, srv.URL, clocktest.NewInstant(clocktest.Start))
			var out struct{ Name string }
			status, err := Call(context.Background(), c.Do, http.MethodPost, "/api/extras/tags/", url.Values{}, tt.in, &out)
			if status != tt.wantStatus || body != tt.wantBody || (tt.status < 300 && out.Name != tt.wantOut) {
				t.Errorf("Call = %d, sent %q, read %q; want %d, %q, %q", status, body, out.Name, tt.wantStatus, tt.wantBody, tt.wantOut)
			}
			if _, isAPI := errors.AsType[*APIError](err); (err != nil) != tt.wantErr || (tt.wantErr && !isAPI) {
				t.Errorf("Call error = %v, want an APIError: %v", err, tt.wantErr)
			}
		})
	}
}
