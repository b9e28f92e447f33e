package neutron

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// fakeKeystone issues a token for one user or application credential and
// lists neutron at two regions in its catalog.
type fakeKeystone struct {
	neutronURL map[string]string // region -> URL

	mu    sync.Mutex
	auths []string // "password" or "application_credential"
}

func (k *fakeKeystone) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v3/auth/tokens" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Auth struct {
			Identity struct {
				Methods  []string `json:"methods"`
				Password struct {
					User struct {
						Name     string `json:"name"`
						Password string `json:"password"`
					} `json:"user"`
				} `json:"password"`
				AppCred struct {
					ID     string `json:"id"`
					Secret string `json:"secret"`
				} `json:"application_credential"`
			} `json:"identity"`
		} `json:"auth"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Auth.Identity.Methods) != 1 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	id := req.Auth.Identity
	ok := (id.Methods[0] == "password" && id.Password.User.Name == "ipsync" && id.Password.User.Password == "s3cret") ||
		(id.Methods[0] == "application_credential" && id.AppCred.ID == "ac1" && id.AppCred.Secret == "s3cret")
	if !ok {
		http.Error(w, `{"error": {"code": 401}}`, http.StatusUnauthorized)
		return
	}
	k.mu.Lock()
	k.auths = append(k.auths, id.Methods[0])
	k.mu.Unlock()
	var endpoints []map[string]string
	for region, u := range k.neutronURL {
		endpoints = append(endpoints, map[string]string{"id": region, "interface": "public", "region": region, "region_id": region, "url": u})
	}
	w.Header().Set("X-Subject-Token", "tok-1")
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(map[string]any{"token": map[string]any{
		"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339),
		"catalog":    []map[string]any{{"type": "network", "name": "neutron", "endpoints": endpoints}},
	}})
}

// tokenNeutron is a fakeNeutron that refuses requests without the token.
func tokenNeutron(t *testing.T) string {
	f := newFake(3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Auth-Token") != "tok-1" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		f.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

func TestKeystone(t *testing.T) {
	good, wrong := tokenNeutron(t), "http://127.0.0.1:1/"
	ks := &fakeKeystone{neutronURL: map[string]string{"RegionOne": good, "RegionTwo": wrong}}
	ksrv := httptest.NewServer(ks)
	t.Cleanup(ksrv.Close)

	clouds := filepath.Join(t.TempDir(), "clouds.yaml")
	doc := `clouds:
  site-a:
    auth:
      auth_url: ` + ksrv.URL + `/v3
      username: ipsync
      password: s3cret
      project_name: admin
      user_domain_name: Default
      project_domain_name: Default
    region_name: RegionOne
  site-b:
    auth_type: v3applicationcredential
    auth:
      auth_url: ` + ksrv.URL + `/v3
      application_credential_id: ac1
      application_credential_secret: s3cret
  bad-password:
    auth:
      auth_url: ` + ksrv.URL + `/v3
      username: ipsync
      password: wrong
      project_name: admin
      user_domain_name: Default
`
	if err := os.WriteFile(clouds, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OS_CLIENT_CONFIG_FILE", clouds)
	for _, k := range []string{"OS_CLOUD", "OS_REGION_NAME", "OS_AUTH_URL", "OS_USERNAME", "OS_PASSWORD", "OS_PROJECT_NAME",
		"OS_APPLICATION_CREDENTIAL_ID", "OS_APPLICATION_CREDENTIAL_SECRET", "OS_DOMAIN_NAME", "OS_INTERFACE"} {
		t.Setenv(k, "")
	}

	tests := []struct {
		name    string
		cfg     Config
		env     map[string]string
		wantErr bool
	}{
		{name: "clouds.yaml with a password, region from the entry", cfg: Config{Cloud: "site-a"}},
		{name: "clouds.yaml with an application credential, region from config", cfg: Config{Cloud: "site-b", Region: "RegionOne"}},
		{name: "endpoint overrides the catalog", cfg: Config{Cloud: "site-b", Region: "RegionTwo", Endpoint: good}},
		{name: "OS_* environment", env: map[string]string{"OS_AUTH_URL": ksrv.URL + "/v3", "OS_USERNAME": "ipsync",
			"OS_PASSWORD": "s3cret", "OS_PROJECT_NAME": "admin", "OS_DOMAIN_NAME": "Default"}, cfg: Config{Region: "RegionOne"}},
		{name: "OS_* application credential", env: map[string]string{"OS_AUTH_URL": ksrv.URL + "/v3",
			"OS_APPLICATION_CREDENTIAL_ID": "ac1", "OS_APPLICATION_CREDENTIAL_SECRET": "s3cret"}, cfg: Config{Region: "RegionOne"}},
		{name: "wrong password", cfg: Config{Cloud: "bad-password", Region: "RegionOne"}, wantErr: true},
		{name: "unknown cloud", cfg: Config{Cloud: "nowhere"}, wantErr: true},
		{name: "no credentials at all", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			cfg := tt.cfg
			cfg.Auth = AuthKeystone
			r, err := NewReader(context.Background(), cfg, discard())
			if tt.wantErr {
				if err == nil {
					t.Fatalf("NewReader(%+v) succeeded, want an error", cfg)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewReader(%+v): %v", cfg, err)
			}
			s, err := r.Read(context.Background())
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if len(s.Networks) != 3 {
				t.Errorf("Read = %d networks, want 3", len(s.Networks))
			}
		})
	}
}
