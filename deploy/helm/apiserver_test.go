package helm_test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v4"
)

// The chart is checked against a real API server with nothing but
// net/http: the module has no Kubernetes client library, and server-side
// apply with dryRun needs none. A kubeconfig's server, CA and credentials
// are all that is read of it.

// kubeconfig is the part of a kubeconfig file this client uses.
type kubeconfig struct {
	CurrentContext string `yaml:"current-context"`
	Clusters       []struct {
		Name    string `yaml:"name"`
		Cluster struct {
			Server     string `yaml:"server"`
			CAFile     string `yaml:"certificate-authority"`
			CAData     string `yaml:"certificate-authority-data"` // base64
			Insecure   bool   `yaml:"insecure-skip-tls-verify"`
			ServerName string `yaml:"tls-server-name"`
		} `yaml:"cluster"`
	} `yaml:"clusters"`
	Users []struct {
		Name string `yaml:"name"`
		User struct {
			Token          string `yaml:"token"`
			TokenFile      string `yaml:"tokenFile"`
			ClientCertFile string `yaml:"client-certificate"`
			ClientCertData string `yaml:"client-certificate-data"` // base64
			ClientKeyFile  string `yaml:"client-key"`
			ClientKeyData  string `yaml:"client-key-data"` // base64
		} `yaml:"user"`
	} `yaml:"users"`
	Contexts []struct {
		Name    string `yaml:"name"`
		Context struct {
			Cluster string `yaml:"cluster"`
			User    string `yaml:"user"`
		} `yaml:"context"`
	} `yaml:"contexts"`
}

// apiServer talks to one API server as the kubeconfig's current user.
type apiServer struct {
	base   string
	token  string
	client *http.Client

	mu        sync.Mutex
	resources map[string][]apiResource // by group version, from discovery
}

// apiResource is one entry of a discovery resource list.
type apiResource struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"`
	Namespaced bool   `json:"namespaced"`
}

// newAPIServer reads the kubeconfig at path. Relative file names in it are
// relative to its folder, as kubectl reads them.
func newAPIServer(path string) (*apiServer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var kc kubeconfig
	if err := yaml.Unmarshal(data, &kc); err != nil {
		return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	rel := func(p string) string {
		if p != "" && !filepath.IsAbs(p) {
			return filepath.Join(filepath.Dir(path), p)
		}
		return p
	}
	var clusterName, userName string
	for _, c := range kc.Contexts {
		if c.Name == kc.CurrentContext {
			clusterName, userName = c.Context.Cluster, c.Context.User
		}
	}
	if clusterName == "" {
		return nil, fmt.Errorf("kubeconfig %s: no context %q", path, kc.CurrentContext)
	}
	s := &apiServer{resources: map[string][]apiResource{}}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	found := false
	for _, c := range kc.Clusters {
		if c.Name != clusterName {
			continue
		}
		found = true
		s.base = strings.TrimSuffix(c.Cluster.Server, "/")
		tlsConfig.InsecureSkipVerify = c.Cluster.Insecure
		tlsConfig.ServerName = c.Cluster.ServerName
		ca, err := base64.StdEncoding.DecodeString(c.Cluster.CAData)
		if err != nil {
			return nil, fmt.Errorf("kubeconfig %s: certificate-authority-data: %w", path, err)
		}
		if c.Cluster.CAFile != "" {
			if ca, err = os.ReadFile(rel(c.Cluster.CAFile)); err != nil {
				return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
			}
		}
		if len(ca) > 0 {
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(ca) {
				return nil, fmt.Errorf("kubeconfig %s: cluster %s: no PEM certificate in its certificate authority", path, clusterName)
			}
			tlsConfig.RootCAs = pool
		}
	}
	if !found || s.base == "" {
		return nil, fmt.Errorf("kubeconfig %s: no server for cluster %q", path, clusterName)
	}
	for _, u := range kc.Users {
		if u.Name != userName {
			continue
		}
		s.token = u.User.Token
		if u.User.TokenFile != "" {
			b, err := os.ReadFile(rel(u.User.TokenFile))
			if err != nil {
				return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
			}
			s.token = strings.TrimSpace(string(b))
		}
		cert, err := base64.StdEncoding.DecodeString(u.User.ClientCertData)
		if err != nil {
			return nil, fmt.Errorf("kubeconfig %s: client-certificate-data: %w", path, err)
		}
		key, err := base64.StdEncoding.DecodeString(u.User.ClientKeyData)
		if err != nil {
			return nil, fmt.Errorf("kubeconfig %s: client-key-data: %w", path, err)
		}
		if u.User.ClientCertFile != "" {
			if cert, err = os.ReadFile(rel(u.User.ClientCertFile)); err != nil {
				return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
			}
		}
		if u.User.ClientKeyFile != "" {
			if key, err = os.ReadFile(rel(u.User.ClientKeyFile)); err != nil {
				return nil, fmt.Errorf("kubeconfig %s: %w", path, err)
			}
		}
		if len(cert) > 0 {
			pair, err := tls.X509KeyPair(cert, key)
			if err != nil {
				return nil, fmt.Errorf("kubeconfig %s: user %s: %w", path, userName, err)
			}
			tlsConfig.Certificates = []tls.Certificate{pair}
		}
	}
	s.client = &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	return s, nil
}

// response is an answer of the API server, read whole.
type response struct {
	status   int
	body     []byte
	warnings []string
}

// statusMessage is the message of a failure's Status object, or the body.
func (r response) statusMessage() string {
	var st struct {
		Message string `json:"message"`
		Reason  string `json:"reason"`
	}
	if json.Unmarshal(r.body, &st) == nil && st.Message != "" {
		return fmt.Sprintf("%d %s: %s", r.status, st.Reason, st.Message)
	}
	return fmt.Sprintf("%d: %s", r.status, bytes.TrimSpace(r.body))
}

func (s *apiServer) do(method, path string, query url.Values, contentType string, body []byte) (response, error) {
	u := s.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequest(method, u, bytes.NewReader(body))
	if err != nil {
		return response{}, err
	}
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	res, err := s.client.Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return response{}, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return response{status: res.StatusCode, body: b, warnings: res.Header.Values("Warning")}, nil
}

func (s *apiServer) getJSON(path string, out any) error {
	r, err := s.do(http.MethodGet, path, nil, "", nil)
	if err != nil {
		return err
	}
	if r.status != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, r.statusMessage())
	}
	return json.Unmarshal(r.body, out)
}

// errNotServed is a group version or kind the server does not serve.
var errNotServed = errors.New("not served by the API server")

// groupVersionPath is where a group version's resources are: /api/v1 for
// the core group, /apis/<group>/<version> for the others.
func groupVersionPath(apiVersion string) string {
	if !strings.Contains(apiVersion, "/") {
		return "/api/" + apiVersion
	}
	return "/apis/" + apiVersion
}

// served says whether discovery lists apiVersion: /api's versions for the
// core group, /apis's groups for the others.
func (s *apiServer) served(apiVersion string) (bool, error) {
	if !strings.Contains(apiVersion, "/") {
		var core struct {
			Versions []string `json:"versions"`
		}
		if err := s.getJSON("/api", &core); err != nil {
			return false, err
		}
		for _, v := range core.Versions {
			if v == apiVersion {
				return true, nil
			}
		}
		return false, nil
	}
	var groups struct {
		Groups []struct {
			Versions []struct {
				GroupVersion string `json:"groupVersion"`
			} `json:"versions"`
		} `json:"groups"`
	}
	if err := s.getJSON("/apis", &groups); err != nil {
		return false, err
	}
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			if v.GroupVersion == apiVersion {
				return true, nil
			}
		}
	}
	return false, nil
}

// resource maps apiVersion and kind to the resource's name and whether it
// is namespaced, from discovery. Lists are kept once they hold the kind,
// so that a kind added since (a new CRD) is found on asking again.
func (s *apiServer) resource(apiVersion, kind string) (apiResource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	find := func() (apiResource, bool) {
		for _, r := range s.resources[apiVersion] {
			if r.Kind == kind && !strings.Contains(r.Name, "/") { // not a subresource
				return r, true
			}
		}
		return apiResource{}, false
	}
	if r, ok := find(); ok {
		return r, nil
	}
	ok, err := s.served(apiVersion)
	if err != nil {
		return apiResource{}, err
	}
	if !ok {
		return apiResource{}, fmt.Errorf("%s: %w", apiVersion, errNotServed)
	}
	var list struct {
		Resources []apiResource `json:"resources"`
	}
	if err := s.getJSON(groupVersionPath(apiVersion), &list); err != nil {
		return apiResource{}, err
	}
	s.resources[apiVersion] = list.Resources
	if r, ok := find(); ok {
		return r, nil
	}
	return apiResource{}, fmt.Errorf("%s %s: %w", apiVersion, kind, errNotServed)
}

// object is the identity of a manifest.
type object struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name      string `yaml:"name"`
		Namespace string `yaml:"namespace"`
	} `yaml:"metadata"`
}

func (o object) String() string { return o.Kind + "/" + o.Metadata.Name }

// apply sends manifest as a server-side apply patch, as `kubectl apply
// --server-side --force-conflicts` does; with dryRun the server validates,
// defaults and admits it (the namespace's Pod Security admission included)
// but stores nothing. Strict field validation makes an unknown or
// duplicated field an error instead of a warning. A namespaced object
// without a namespace goes to namespace.
func (s *apiServer) apply(manifest []byte, namespace, fieldManager string, dryRun bool) (response, error) {
	var o object
	if err := yaml.Unmarshal(manifest, &o); err != nil {
		return response{}, fmt.Errorf("decode manifest: %w", err)
	}
	if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
		return response{}, fmt.Errorf("manifest without apiVersion, kind or metadata.name:\n%s", manifest)
	}
	r, err := s.resource(o.APIVersion, o.Kind)
	if err != nil {
		return response{}, fmt.Errorf("%s: %w", o, err)
	}
	path := groupVersionPath(o.APIVersion)
	if r.Namespaced {
		ns := o.Metadata.Namespace
		if ns == "" {
			ns = namespace
		}
		path += "/namespaces/" + url.PathEscape(ns)
	}
	path += "/" + r.Name + "/" + url.PathEscape(o.Metadata.Name)
	q := url.Values{"fieldManager": {fieldManager}, "force": {"true"}, "fieldValidation": {"Strict"}}
	if dryRun {
		q.Set("dryRun", "All")
	}
	return s.do(http.MethodPatch, path, q, "application/apply-patch+yaml", manifest)
}

// waitFor polls cond every 200ms until it is true or timeout passes; the
// last error says what it was waiting for.
func waitFor(timeout time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = errors.New("condition not met")
			}
			return fmt.Errorf("after %v: %w", timeout, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
