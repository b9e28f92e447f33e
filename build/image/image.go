package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	binaryPath = "/usr/local/bin/ipsync"
	caPath     = "/etc/ssl/certs/ca-certificates.crt"
	// 65532 is the "nonroot" of distroless images, so that Kubernetes
	// manifests written for those (runAsUser: 65532) fit this one too.
	nonroot = 65532
	// The agent's status and metrics port (agent.listen's default port).
	// The default address is loopback: a container has to be configured
	// with agent.listen 0.0.0.0:9478 (or --listen) to be reachable.
	agentPort = "9478/tcp"
)

// meta is what the labels and annotations say about the build.
type meta struct {
	Version string
	Commit  string
	Created time.Time
}

// tagRE is the grammar of a Docker tag, the stricter of the two places
// the version is used as a name (org.opencontainers.image.ref.name allows
// more).
var tagRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

func (m meta) check() error {
	if !tagRE.MatchString(m.Version) {
		return fmt.Errorf("version %q: not a valid image tag (letters, digits, _ . -, at most 128)", m.Version)
	}
	if m.Commit == "" {
		return fmt.Errorf("no commit given")
	}
	if m.Created.IsZero() {
		return fmt.Errorf("no creation time given")
	}
	return nil
}

// labels are the OCI annotations the image config carries as labels, and
// the manifests and the index as annotations. There is no license label:
// the repository has no license file to name.
func (m meta) labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "ipsync",
		"org.opencontainers.image.description": "Keep Nautobot or NetBox in agreement with a static YAML spec and each site's Neutron",
		"org.opencontainers.image.source":      "https://github.com/ipsync/ipsync",
		"org.opencontainers.image.url":         "https://github.com/ipsync/ipsync",
		"org.opencontainers.image.version":     m.Version,
		"org.opencontainers.image.revision":    m.Commit,
		"org.opencontainers.image.created":     m.Created.UTC().Format(time.RFC3339),
	}
}

// file is one entry of a layer.
type file struct {
	name string // absolute path in the image
	mode int64  // permission bits, and the sticky bit; directories have dir set
	dir  bool
	data []byte
}

// layerTar writes files as a tar archive, every entry owned by root and
// dated mtime, so that the same content always makes the same layer.
func layerTar(files []file, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{
			Name:     strings.TrimPrefix(f.name, "/"),
			Mode:     f.mode,
			Uname:    "root",
			Gname:    "root",
			ModTime:  mtime,
			Typeflag: tar.TypeReg,
			Size:     int64(len(f.data)),
			Format:   tar.FormatPAX,
		}
		if f.dir {
			h.Name += "/"
			h.Typeflag = tar.TypeDir
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("tar header of %s: %w", f.name, err)
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, fmt.Errorf("tar content of %s: %w", f.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("closing tar: %w", err)
	}
	return buf.Bytes(), nil
}

// layer makes an OCI gzip layer of files, at gzip's default level rather
// than the library's BestSpeed: the binary layer is a tenth smaller (6.0
// against 6.7 MB), within half a percent of the best level at a third of
// its time.
func layer(files []file, mtime time.Time) (v1.Layer, error) {
	b, err := layerTar(files, mtime)
	if err != nil {
		return nil, err
	}
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil },
		tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.DefaultCompression), tarball.WithCompressedCaching)
	if err != nil {
		return nil, fmt.Errorf("making layer: %w", err)
	}
	return l, nil
}

// baseFiles are what every platform's image has besides the binary: the
// same bytes, so one layer blob serves both.
func baseFiles(caBundle []byte) []file {
	// Named users and groups, so that ps, ls and id inside a debug
	// container show names; no shell and no home to write to.
	passwd := "root:x:0:0:root:/root:/sbin/nologin\n" +
		fmt.Sprintf("nonroot:x:%d:%d:nonroot:/nonexistent:/sbin/nologin\n", nonroot, nonroot)
	group := "root:x:0:\n" + fmt.Sprintf("nonroot:x:%d:\n", nonroot)
	return []file{
		{name: "/etc", mode: 0o755, dir: true},
		{name: "/etc/group", mode: 0o644, data: []byte(group)},
		{name: "/etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "/etc/ssl", mode: 0o755, dir: true},
		{name: "/etc/ssl/certs", mode: 0o755, dir: true},
		{name: caPath, mode: 0o644, data: caBundle},
		// Where os.CreateTemp goes; sticky and world-writable as on any
		// Unix, for a container whose root file system is writable.
		{name: "/tmp", mode: 0o1777, dir: true},
	}
}

func binaryFiles(binary []byte) []file {
	return []file{
		{name: "/usr", mode: 0o755, dir: true},
		{name: "/usr/local", mode: 0o755, dir: true},
		{name: "/usr/local/bin", mode: 0o755, dir: true},
		{name: binaryPath, mode: 0o755, data: binary},
	}
}

// platformImage builds the image of one platform from the shared base
// layer and that platform's binary.
func platformImage(p v1.Platform, base v1.Layer, binary []byte, m meta) (v1.Image, error) {
	bin, err := layer(binaryFiles(binary), m.Created)
	if err != nil {
		return nil, fmt.Errorf("%s binary layer: %w", platformString(p), err)
	}
	created := v1.Time{Time: m.Created.UTC()}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{Created: created,
			CreatedBy: "ipsync image build: /etc/passwd, /etc/group (nonroot 65532), CA certificates, /tmp"}},
		mutate.Addendum{Layer: bin, MediaType: types.OCILayer, History: v1.History{Created: created,
			CreatedBy: "ipsync image build: " + binaryPath + " " + m.Version + " (" + m.Commit + ")"}})
	if err != nil {
		return nil, fmt.Errorf("%s layers: %w", platformString(p), err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("%s config: %w", platformString(p), err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = created
	cf.Config = v1.Config{
		// No Cmd: the bare image prints ipsync's usage, and a deployment
		// names the command it runs (the Helm chart: args: [agent, ...]).
		Entrypoint: []string{binaryPath},
		User:       fmt.Sprintf("%d:%d", nonroot, nonroot),
		WorkingDir: "/",
		Env: []string{
			// Runtimes set no PATH of their own for exec; this one lets
			// `kubectl exec ... ipsync version` find the binary.
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			// Go finds this path by itself; other TLS stacks a user
			// might add in a derived image look here.
			"SSL_CERT_FILE=" + caPath,
		},
		ExposedPorts: map[string]struct{}{agentPort: {}},
		Labels:       m.labels(),
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("%s config: %w", platformString(p), err)
	}
	return mutate.Annotations(img, m.labels()).(v1.Image), nil
}

// buildIndex is the multi-platform image: one image index over the
// platforms' images, in the order given.
func buildIndex(platforms []v1.Platform, binaries map[string][]byte, caBundle []byte, m meta) (v1.ImageIndex, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	base, err := layer(baseFiles(caBundle), m.Created)
	if err != nil {
		return nil, fmt.Errorf("base layer: %w", err)
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range platforms {
		binary, ok := binaries[platformString(p)]
		if !ok {
			return nil, fmt.Errorf("no binary for %s", platformString(p))
		}
		img, err := platformImage(p, base, binary, m)
		if err != nil {
			return nil, err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	return mutate.Annotations(idx, m.labels()).(v1.ImageIndex), nil
}

func platformString(p v1.Platform) string {
	s := p.OS + "/" + p.Architecture
	if p.Variant != "" {
		s += "/" + p.Variant
	}
	return s
}

// parsePlatforms reads "linux/amd64,linux/arm64".
func parsePlatforms(s string) ([]v1.Platform, error) {
	var ps []v1.Platform
	for f := range strings.SplitSeq(s, ",") {
		parts := strings.Split(strings.TrimSpace(f), "/")
		if len(parts) != 2 || parts[0] != "linux" || parts[1] == "" {
			return nil, fmt.Errorf("platform %q: want linux/ARCH", f)
		}
		p := v1.Platform{OS: parts[0], Architecture: parts[1]}
		if slices.ContainsFunc(ps, func(q v1.Platform) bool { return q.Equals(p) }) {
			return nil, fmt.Errorf("platform %q given twice", f)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// caBundleFrom reads the image's CA certificates: the PEM bundle path
// names, or, when path is a directory, its *.crt files in name order.
// Each must be a parsable certificate: a truncated bundle would only
// show as TLS failures in production.
func caBundleFrom(path string) (bundle []byte, count int, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, fmt.Errorf("CA certificates: %w", err)
	}
	files := []string{path}
	if st.IsDir() {
		files, err = filepath.Glob(filepath.Join(path, "*.crt"))
		if err != nil {
			return nil, 0, fmt.Errorf("CA certificates in %s: %w", path, err)
		}
		slices.Sort(files)
	}
	var buf bytes.Buffer
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, 0, fmt.Errorf("CA certificates: %w", err)
		}
		n, err := countCerts(b)
		if err != nil {
			return nil, 0, fmt.Errorf("CA certificates in %s: %w", f, err)
		}
		count += n
		buf.Write(b)
		if len(b) > 0 && b[len(b)-1] != '\n' {
			buf.WriteByte('\n')
		}
	}
	if count == 0 {
		return nil, 0, fmt.Errorf("CA certificates: no certificate in %s", path)
	}
	return buf.Bytes(), count, nil
}

func countCerts(b []byte) (int, error) {
	n := 0
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			return n, fmt.Errorf("PEM block %d is a %s, want CERTIFICATE", n+1, blk.Type)
		}
		if _, err := x509.ParseCertificate(blk.Bytes); err != nil {
			return n, fmt.Errorf("certificate %d: %w", n+1, err)
		}
		n++
	}
	if len(bytes.TrimSpace(b)) > 0 && n == 0 {
		return 0, fmt.Errorf("no PEM certificate")
	}
	return n, nil
}
