// Package imagetest checks the container image scripts/image-build.sh
// builds, through other tools than the library that wrote it: skopeo reads
// the index, manifests and configs, umoci unpacks each platform's root file
// system, archive/tar reads the layers and debug/elf the binaries. It runs
// when IPSYNC_IMAGE names the OCI layout.
package imagetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/x509"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

const (
	refNameKey  = "org.opencontainers.image.ref.name"
	ociIndex    = "application/vnd.oci.image.index.v1+json"
	ociManifest = "application/vnd.oci.image.manifest.v1+json"
	binaryPath  = "usr/local/bin/ipsync"
)

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations"`
	Platform    *struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
		Variant      string `json:"variant"`
	} `json:"platform"`
}

type index struct {
	MediaType   string            `json:"mediaType"`
	Manifests   []descriptor      `json:"manifests"`
	Annotations map[string]string `json:"annotations"`
}

type manifest struct {
	MediaType   string            `json:"mediaType"`
	Layers      []descriptor      `json:"layers"`
	Annotations map[string]string `json:"annotations"`
}

type imageConfig struct {
	OS           string `json:"os"`
	Architecture string `json:"architecture"`
	Config       struct {
		Entrypoint   []string            `json:"Entrypoint"`
		Cmd          []string            `json:"Cmd"`
		User         string              `json:"User"`
		WorkingDir   string              `json:"WorkingDir"`
		Env          []string            `json:"Env"`
		ExposedPorts map[string]struct{} `json:"ExposedPorts"`
		Labels       map[string]string   `json:"Labels"`
	} `json:"config"`
}

// platforms are the image's, each with the ELF machine of its binary.
var platforms = []struct {
	arch    string
	machine elf.Machine
}{
	{"amd64", elf.EM_X86_64},
	{"arm64", elf.EM_AARCH64},
}

func TestImage(t *testing.T) {
	dir := os.Getenv("IPSYNC_IMAGE")
	if dir == "" {
		t.Skip("IPSYNC_IMAGE is not set: build the image with scripts/image-build.sh OUTDIR and set IPSYNC_IMAGE to the OCI layout it prints")
	}
	for _, tool := range []string{"skopeo", "umoci"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s: %v (Debian: apt-get install skopeo umoci)", tool, err)
		}
	}
	want := wantLabels{version: os.Getenv("IPSYNC_IMAGE_VERSION"), commit: os.Getenv("IPSYNC_IMAGE_COMMIT")}

	tag := layoutTag(t, dir, want.version)
	src := "oci:" + dir + ":" + tag
	var idx index
	decode(t, skopeo(t, "inspect", "--raw", src), &idx)
	if idx.MediaType != ociIndex {
		t.Errorf("%s: media type %q, want %q", src, idx.MediaType, ociIndex)
	}
	want.check(t, "index annotation", idx.Annotations)
	var got, wantPlatforms []string
	byArch := map[string]descriptor{}
	for _, d := range idx.Manifests {
		if d.Platform == nil {
			t.Errorf("index entry %s has no platform", d.Digest)
			continue
		}
		got = append(got, d.Platform.OS+"/"+d.Platform.Architecture+variant(d.Platform.Variant))
		byArch[d.Platform.Architecture] = d
	}
	for _, p := range platforms {
		wantPlatforms = append(wantPlatforms, "linux/"+p.arch)
	}
	if slices.Sort(got); !slices.Equal(got, wantPlatforms) {
		t.Fatalf("index platforms = %v, want %v", got, wantPlatforms)
	}

	for _, p := range platforms {
		t.Run("linux/"+p.arch, func(t *testing.T) {
			checkPlatform(t, dir, src, tag, byArch[p.arch], p.arch, p.machine, want)
		})
	}
}

// checkPlatform copies one platform's image out of the index with skopeo,
// the way a runtime picks it, and checks its manifest, config, layers and
// unpacked files.
func checkPlatform(t *testing.T, dir, src, tag string, entry descriptor, arch string, machine elf.Machine, want wantLabels) {
	tmp := t.TempDir()
	single := "oci:" + filepath.Join(tmp, "layout") + ":" + tag
	// A policy decides which signatures a pull demands; copying between
	// two local layouts has none to check.
	skopeo(t, "--insecure-policy", "--override-os", "linux", "--override-arch", arch, "copy", "--quiet", src, single)

	raw := skopeo(t, "inspect", "--raw", single)
	if got := "sha256:" + hex.EncodeToString(sha256Sum(raw)); got != entry.Digest {
		t.Errorf("the manifest skopeo picks for %s is %s, want the index's %s", arch, got, entry.Digest)
	}
	var m manifest
	decode(t, raw, &m)
	if m.MediaType != ociManifest {
		t.Errorf("manifest media type %q, want %q", m.MediaType, ociManifest)
	}
	want.check(t, "manifest annotation", m.Annotations)

	var cfg imageConfig
	decode(t, skopeo(t, "inspect", "--config", single), &cfg)
	c := cfg.Config
	for _, tt := range []struct{ what, got, want string }{
		{"os/arch", cfg.OS + "/" + cfg.Architecture, "linux/" + arch},
		{"entrypoint", fmt.Sprint(c.Entrypoint), "[/" + binaryPath + "]"},
		{"cmd", fmt.Sprint(c.Cmd), "[]"},
		{"user", c.User, "65532:65532"},
		{"working dir", c.WorkingDir, "/"},
		{"SSL_CERT_FILE", envValue(c.Env, "SSL_CERT_FILE"), "/etc/ssl/certs/ca-certificates.crt"},
		{"exposed ports", fmt.Sprint(c.ExposedPorts), "map[9478/tcp:{}]"},
	} {
		if tt.got != tt.want {
			t.Errorf("config %s = %q, want %q", tt.what, tt.got, tt.want)
		}
	}
	want.check(t, "label", c.Labels)

	checkLayers(t, dir, m.Layers)

	bundle := filepath.Join(tmp, "bundle")
	run(t, "umoci", "unpack", "--rootless", "--image", filepath.Join(tmp, "layout")+":"+tag, bundle)
	var spec struct {
		Process struct {
			User struct{ UID, GID int }
			Args []string
		}
	}
	decode(t, readFile(t, filepath.Join(bundle, "config.json")), &spec)
	if u := spec.Process.User; u.UID != 65532 || u.GID != 65532 {
		t.Errorf("umoci's runtime config runs as %d:%d, want 65532:65532", u.UID, u.GID)
	}
	rootfs := filepath.Join(bundle, "rootfs")
	checkFiles(t, rootfs, machine)

	if arch != runtime.GOARCH {
		return
	}
	// This machine runs this platform's binary: it must say what the
	// labels say it is.
	line := fmt.Sprintf("ipsync %s (commit %s, plan format ", c.Labels["org.opencontainers.image.version"], c.Labels["org.opencontainers.image.revision"])
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out := string(run(t, filepath.Join(rootfs, binaryPath), args...))
		if !strings.HasPrefix(out, line) || strings.Count(out, "\n") != 1 {
			t.Errorf("ipsync %s printed %q, want one line starting %q", args[0], out, line)
		}
		t.Logf("ipsync %s: %s", args[0], strings.TrimSpace(out))
	}
}

// checkLayers reads the layers' tar headers straight from the layout's
// blobs: ownership is lost once a rootless unpack has made the files.
func checkLayers(t *testing.T, dir string, layers []descriptor) {
	if len(layers) == 0 {
		t.Fatal("the manifest has no layers")
	}
	seen := map[string]bool{}
	for _, l := range layers {
		for _, h := range layerHeaders(t, dir, l) {
			name := strings.TrimSuffix(h.Name, "/")
			seen[name] = true
			special := h.Mode & 0o7000 // setuid, setgid, sticky
			switch {
			case h.Uid != 0 || h.Gid != 0:
				t.Errorf("%s: owner %d:%d, want 0:0", name, h.Uid, h.Gid)
			case h.Typeflag != tar.TypeReg && h.Typeflag != tar.TypeDir:
				t.Errorf("%s: tar type %c, want only files and directories", name, h.Typeflag)
			case name == "tmp" && (h.Mode != 0o1777 || h.Typeflag != tar.TypeDir):
				t.Errorf("/tmp: mode %o, want a directory 1777", h.Mode)
			case name != "tmp" && (special != 0 || h.Mode&0o022 != 0):
				t.Errorf("%s: mode %o, want no special bits and writable by root alone", name, h.Mode)
			}
		}
	}
	for _, name := range []string{binaryPath, "etc/passwd", "etc/group", "etc/ssl/certs/ca-certificates.crt"} {
		if !seen[name] {
			t.Errorf("no layer has %s", name)
		}
	}
}

func layerHeaders(t *testing.T, dir string, l descriptor) []*tar.Header {
	t.Helper()
	algo, hexDigest, _ := strings.Cut(l.Digest, ":")
	f, err := os.Open(filepath.Join(dir, "blobs", algo, hexDigest))
	if err != nil {
		t.Fatalf("layer %s: %v", l.Digest, err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("layer %s (%s): %v", l.Digest, l.MediaType, err)
	}
	var hs []*tar.Header
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return hs
		}
		if err != nil {
			t.Fatalf("layer %s: %v", l.Digest, err)
		}
		hs = append(hs, h)
	}
}

// checkFiles checks the unpacked root file system.
func checkFiles(t *testing.T, rootfs string, machine elf.Machine) {
	bin := filepath.Join(rootfs, binaryPath)
	st, err := os.Stat(bin)
	if err != nil {
		t.Fatalf("binary: %v", err)
	}
	if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 != 0o111 {
		t.Errorf("binary mode %s, want a file executable by all", st.Mode())
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatalf("binary: %v", err)
	}
	defer f.Close()
	if f.Machine != machine || f.Class != elf.ELFCLASS64 {
		t.Errorf("binary is %s %s, want %s %s", f.Class, f.Machine, elf.ELFCLASS64, machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("binary has a %s program header: dynamically linked, want static", p.Type)
		}
	}

	ca := readFile(t, filepath.Join(rootfs, "etc/ssl/certs/ca-certificates.crt"))
	if n := bytes.Count(ca, []byte("-----BEGIN CERTIFICATE-----")); n < 10 || !x509.NewCertPool().AppendCertsFromPEM(ca) {
		t.Errorf("CA bundle has %d certificates, want a parsable bundle of Debian's (well over 10)", n)
	}

	for _, tt := range []struct{ file, want string }{
		{"etc/passwd", "nonroot:x:65532:65532:"},
		{"etc/group", "nonroot:x:65532:"},
	} {
		lines := strings.Split(string(readFile(t, filepath.Join(rootfs, tt.file))), "\n")
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, tt.want) }) {
			t.Errorf("/%s has no line starting %q:\n%s", tt.file, tt.want, strings.Join(lines, "\n"))
		}
	}
}

// wantLabels are the annotations both labels and annotations must carry.
// The version and commit must be the ones the build was given, where the
// test is told them.
type wantLabels struct{ version, commit string }

func (w wantLabels) check(t *testing.T, what string, got map[string]string) {
	t.Helper()
	for _, tt := range []struct{ key, want string }{
		{"title", "ipsync"},
		{"source", "https://github.com/ipsync/ipsync"},
		{"url", "https://github.com/ipsync/ipsync"},
		{"version", w.version},
		{"revision", w.commit},
		{"description", ""},
		{"created", ""},
	} {
		key := "org.opencontainers.image." + tt.key
		v := got[key]
		switch {
		case v == "":
			t.Errorf("%s %s missing", what, key)
		case tt.want != "" && v != tt.want:
			t.Errorf("%s %s = %q, want %q", what, key, v, tt.want)
		}
	}
	if _, err := time.Parse(time.RFC3339, got["org.opencontainers.image.created"]); err != nil {
		t.Errorf("%s created: %v", what, err)
	}
}

// layoutTag reads the layout's index.json, which must name one image
// index, and returns its tag.
func layoutTag(t *testing.T, dir, wantVersion string) string {
	var top index
	decode(t, readFile(t, filepath.Join(dir, "index.json")), &top)
	if len(top.Manifests) != 1 {
		t.Fatalf("%s/index.json has %d entries, want 1 (the image index)", dir, len(top.Manifests))
	}
	d := top.Manifests[0]
	tag := d.Annotations[refNameKey]
	switch {
	case d.MediaType != ociIndex:
		t.Fatalf("%s/index.json names a %s, want an image index", dir, d.MediaType)
	case tag == "":
		t.Fatalf("%s/index.json: the image index has no %s", dir, refNameKey)
	case wantVersion != "" && tag != wantVersion:
		t.Errorf("%s/index.json tag %q, want %q", dir, tag, wantVersion)
	}
	return tag
}

func skopeo(t *testing.T, args ...string) []byte { t.Helper(); return run(t, "skopeo", args...) }

// run runs a command and returns its standard output; it fails the test
// with the standard error when the command fails.
func run(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

func decode(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding %T: %v\n%s", v, err, b)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func envValue(env []string, key string) string {
	for _, e := range env {
		if k, v, ok := strings.Cut(e, "="); ok && k == key {
			return v
		}
	}
	return ""
}

func variant(v string) string {
	if v == "" {
		return ""
	}
	return "/" + v
}

func sha256Sum(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}
