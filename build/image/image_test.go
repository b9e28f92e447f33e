package main

import (
	"archive/tar"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

var (
	testMeta      = meta{Version: "v1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567", Created: time.Unix(1780000000, 0).UTC()}
	testPlatforms = []v1.Platform{{OS: "linux", Architecture: "amd64"}, {OS: "linux", Architecture: "arm64"}}
	testBinaries  = map[string][]byte{"linux/amd64": []byte("amd64 binary"), "linux/arm64": []byte("arm64 binary")}
	testCA        = []byte("-----BEGIN CERTIFICATE-----\nnot parsed here\n-----END CERTIFICATE-----\n")
)

func testIndex(t *testing.T, m meta) v1.ImageIndex {
	t.Helper()
	idx, err := buildIndex(testPlatforms, testBinaries, testCA, m)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

func digest(t *testing.T, idx v1.ImageIndex) v1.Hash {
	t.Helper()
	d, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestReproducible: the same inputs give the same index, byte for byte;
// another creation time gives another.
func TestReproducible(t *testing.T) {
	a, b := digest(t, testIndex(t, testMeta)), digest(t, testIndex(t, testMeta))
	if a != b {
		t.Errorf("two builds of the same inputs: %s and %s", a, b)
	}
	later := testMeta
	later.Created = later.Created.Add(time.Second)
	if c := digest(t, testIndex(t, later)); c == a {
		t.Errorf("another creation time gives the same digest %s", c)
	}
}

// TestImages checks each platform's config and files.
func TestImages(t *testing.T) {
	idx := testIndex(t, testMeta)
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != len(testPlatforms) {
		t.Fatalf("index has %d manifests, want %d", len(im.Manifests), len(testPlatforms))
	}
	if got := im.Annotations["org.opencontainers.image.revision"]; got != testMeta.Commit {
		t.Errorf("index revision annotation = %q, want %q", got, testMeta.Commit)
	}
	var baseDigests []v1.Hash
	for i, d := range im.Manifests {
		p := testPlatforms[i]
		t.Run(platformString(p), func(t *testing.T) {
			if d.Platform == nil || !d.Platform.Equals(p) {
				t.Fatalf("manifest %d platform = %v, want %v", i, d.Platform, p)
			}
			img, err := idx.Image(d.Digest)
			if err != nil {
				t.Fatal(err)
			}
			cf, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			c := cf.Config
			for _, tt := range []struct{ what, got, want string }{
				{"os/arch", cf.OS + "/" + cf.Architecture, platformString(p)},
				{"created", cf.Created.UTC().Format(time.RFC3339), "2026-05-28T20:26:40Z"},
				{"entrypoint", strings.Join(c.Entrypoint, " "), "/usr/local/bin/ipsync"},
				{"cmd", strings.Join(c.Cmd, " "), ""},
				{"user", c.User, "65532:65532"},
				{"workdir", c.WorkingDir, "/"},
				{"env SSL_CERT_FILE", strings.Join(slices.DeleteFunc(slices.Clone(c.Env), func(e string) bool { return !strings.HasPrefix(e, "SSL_CERT_FILE=") }), ","), "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
				{"version label", c.Labels["org.opencontainers.image.version"], "v1.2.3"},
				{"revision label", c.Labels["org.opencontainers.image.revision"], testMeta.Commit},
				{"created label", c.Labels["org.opencontainers.image.created"], "2026-05-28T20:26:40Z"},
			} {
				if tt.got != tt.want {
					t.Errorf("%s = %q, want %q", tt.what, tt.got, tt.want)
				}
			}
			if _, ok := c.ExposedPorts["9478/tcp"]; !ok || len(c.ExposedPorts) != 1 {
				t.Errorf("exposed ports = %v, want 9478/tcp", c.ExposedPorts)
			}
			m, err := img.Manifest()
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Annotations["org.opencontainers.image.version"]; got != "v1.2.3" {
				t.Errorf("manifest version annotation = %q, want %q", got, "v1.2.3")
			}
			layers, err := img.Layers()
			if err != nil || len(layers) != 2 {
				t.Fatalf("layers = %d, %v; want 2", len(layers), err)
			}
			base, err := layers[0].Digest()
			if err != nil {
				t.Fatal(err)
			}
			baseDigests = append(baseDigests, base)
			files := map[string]*tar.Header{}
			contents := map[string]string{}
			for _, l := range layers {
				readLayer(t, l, files, contents)
			}
			for _, tt := range []struct {
				name string
				mode int64
				typ  byte
			}{
				{"etc/", 0o755, tar.TypeDir},
				{"etc/passwd", 0o644, tar.TypeReg},
				{"etc/group", 0o644, tar.TypeReg},
				{"etc/ssl/certs/ca-certificates.crt", 0o644, tar.TypeReg},
				{"tmp/", 0o1777, tar.TypeDir},
				{"usr/local/bin/", 0o755, tar.TypeDir},
				{"usr/local/bin/ipsync", 0o755, tar.TypeReg},
			} {
				h := files[tt.name]
				switch {
				case h == nil:
					t.Errorf("%s missing", tt.name)
				case h.Mode != tt.mode || h.Typeflag != tt.typ:
					t.Errorf("%s: mode %o type %c, want %o %c", tt.name, h.Mode, h.Typeflag, tt.mode, tt.typ)
				case h.Uid != 0 || h.Gid != 0:
					t.Errorf("%s owned by %d:%d, want root", tt.name, h.Uid, h.Gid)
				case !h.ModTime.Equal(testMeta.Created):
					t.Errorf("%s dated %s, want %s", tt.name, h.ModTime, testMeta.Created)
				}
			}
			if got, want := contents["usr/local/bin/ipsync"], string(testBinaries[platformString(p)]); got != want {
				t.Errorf("binary = %q, want %q", got, want)
			}
			if !strings.Contains(contents["etc/passwd"], "nonroot:x:65532:65532:") {
				t.Errorf("/etc/passwd lacks nonroot 65532:\n%s", contents["etc/passwd"])
			}
		})
	}
	if len(baseDigests) == 2 && baseDigests[0] != baseDigests[1] {
		t.Errorf("base layers differ between platforms: %v", baseDigests)
	}
}

func readLayer(t *testing.T, l v1.Layer, files map[string]*tar.Header, contents map[string]string) {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name], contents[h.Name] = h, string(b)
	}
}

// TestWriteLayout: the layout's only entry is the index, tagged with the
// version, and its files are readable by everyone.
func TestWriteLayout(t *testing.T) {
	out := t.TempDir()
	idx := testIndex(t, testMeta)
	for range 2 { // the second replaces the first
		if _, err := writeLayout(out, idx, testMeta.Version); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "oci", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var index struct {
		Manifests []struct {
			MediaType   string
			Digest      string
			Annotations map[string]string
		}
	}
	if err := json.Unmarshal(b, &index); err != nil {
		t.Fatal(err)
	}
	if len(index.Manifests) != 1 {
		t.Fatalf("index.json has %d entries, want 1: %s", len(index.Manifests), b)
	}
	e := index.Manifests[0]
	if e.MediaType != "application/vnd.oci.image.index.v1+json" || e.Digest != digest(t, idx).String() || e.Annotations[refName] != "v1.2.3" {
		t.Errorf("index.json entry = %+v, want the image index %s tagged v1.2.3", e, digest(t, idx))
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("output holds %v, want only oci (no leftover temporary layout)", entries)
	}
	err = filepath.WalkDir(filepath.Join(out, "oci"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := fs.FileMode(0o644)
		if d.IsDir() {
			want = 0o755 | fs.ModeDir
		}
		if info.Mode() != want {
			t.Errorf("%s: mode %s, want %s", path, info.Mode(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMetaCheck(t *testing.T) {
	for _, tt := range []struct {
		name    string
		m       meta
		wantErr string
	}{
		{"valid", testMeta, ""},
		{"git describe of a changed tree", meta{Version: "v1.2.3-4-gabcdef0-dirty", Commit: "c", Created: testMeta.Created}, ""},
		{"plus is no tag", meta{Version: "v1.2.3+meta", Commit: "c", Created: testMeta.Created}, "not a valid image tag"},
		{"empty version", meta{Commit: "c", Created: testMeta.Created}, "not a valid image tag"},
		{"no commit", meta{Version: "v1", Created: testMeta.Created}, "no commit"},
		{"no time", meta{Version: "v1", Commit: "c"}, "no creation time"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.m.check()
			if got := errString(err); tt.wantErr == "" && err != nil || !strings.Contains(got, tt.wantErr) {
				t.Errorf("check() = %q, want %q", got, tt.wantErr)
			}
		})
	}
}

func TestParsePlatforms(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    []string
		wantErr string
	}{
		{"linux/amd64,linux/arm64", []string{"linux/amd64", "linux/arm64"}, ""},
		{"linux/arm64", []string{"linux/arm64"}, ""},
		{"linux/amd64,linux/amd64", nil, "given twice"},
		{"darwin/arm64", nil, "want linux/ARCH"},
		{"linux", nil, "want linux/ARCH"},
		{"", nil, "want linux/ARCH"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			ps, err := parsePlatforms(tt.in)
			var got []string
			for _, p := range ps {
				got = append(got, platformString(p))
			}
			if !slices.Equal(got, tt.want) || !strings.Contains(errString(err), tt.wantErr) || (tt.wantErr == "") != (err == nil) {
				t.Errorf("parsePlatforms(%q) = %v, %v; want %v, %q", tt.in, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestCABundle: a directory's certificates are joined in name order, and
// anything that is not a certificate fails the build.
func TestCABundle(t *testing.T) {
	dir := t.TempDir()
	a, b := testCert(t, "a"), testCert(t, "b")
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("2.crt", b)
	write("1.crt", a[:len(a)-1]) // no final newline: one is added
	write("README", []byte("not a certificate, not a *.crt"))
	bundle, n, err := caBundleFrom(dir)
	if err != nil || n != 2 || string(bundle) != string(a)+string(b) {
		t.Errorf("caBundleFrom(dir) = %d certificates, %v, bundle in order %v; want 2, nil, true", n, err, string(bundle) == string(a)+string(b))
	}
	if _, n, err := caBundleFrom(filepath.Join(dir, "2.crt")); err != nil || n != 1 {
		t.Errorf("caBundleFrom(file) = %d, %v; want 1, nil", n, err)
	}

	for _, tt := range []struct {
		name, content, wantErr string
	}{
		{"empty.crt", "", "no certificate"},
		{"key.crt", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", "want CERTIFICATE"},
		{"garbage.crt", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "certificate 1"},
		{"text.crt", "hello\n", "no PEM certificate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.name)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, _, err := caBundleFrom(path); !strings.Contains(errString(err), tt.wantErr) || err == nil {
				t.Errorf("caBundleFrom(%s) = %v, want an error with %q", tt.name, err, tt.wantErr)
			}
		})
	}
}

// testCert is a self-signed PEM certificate.
func testCert(t *testing.T, cn string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<32, 0), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
