// Command image builds ipsync's multi-platform container image without a
// container engine: it cross-compiles ipsync for each platform, lays the
// binary over a small base of its own (CA certificates, a nonroot user;
// no shell, no libc) and writes an OCI image layout holding one image
// index, tagged with the version, plus a docker-archive per platform for
// `docker load`. The same source, version, commit, creation time, Go
// toolchain and CA certificates give the same image, digest for digest.
//
// scripts/image-build.sh runs it with the version and commit of the
// checkout; see there.
package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

const (
	module   = "github.com/ipsync/ipsync"
	refName  = "org.opencontainers.image.ref.name"
	layoutIn = "oci" // the layout's directory under -out
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("image: ")
	if err := run(os.Args[1:], os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(args []string, stdout io.Writer) error {
	flags := flag.NewFlagSet("image", flag.ContinueOnError)
	src := flags.String("src", "", "ipsync's source tree (the repository root)")
	out := flags.String("out", "", "output directory: the OCI layout goes to OUT/"+layoutIn+", the archives beside it")
	version := flags.String("version", "", "the version baked in, labelled and tagged")
	commit := flags.String("commit", "", "the commit baked in and labelled")
	epoch := flags.Int64("created", -1, "the image's creation time, seconds since 1970 (SOURCE_DATE_EPOCH)")
	platforms := flags.String("platforms", "linux/amd64,linux/arm64", "platforms, comma-separated")
	ca := flags.String("ca", "/usr/share/ca-certificates/mozilla", "CA certificates: a PEM bundle, or a directory of *.crt files")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *src == "" || *out == "" || *epoch < 0 || flags.NArg() > 0 {
		return fmt.Errorf("usage: image -src DIR -out DIR -version V -commit C -created SECONDS [-platforms LIST] [-ca PATH]")
	}
	m := meta{Version: *version, Commit: *commit, Created: time.Unix(*epoch, 0).UTC()}
	if err := m.check(); err != nil {
		return err
	}
	ps, err := parsePlatforms(*platforms)
	if err != nil {
		return err
	}
	caBundle, n, err := caBundleFrom(*ca)
	if err != nil {
		return err
	}
	log.Printf("%d CA certificates from %s", n, *ca)

	work, err := os.MkdirTemp("", "ipsync-image-")
	if err != nil {
		return fmt.Errorf("work directory: %w", err)
	}
	defer os.RemoveAll(work)
	binaries := map[string][]byte{}
	for _, p := range ps {
		start := time.Now()
		bin := filepath.Join(work, p.Architecture, "ipsync")
		if err := compile(*src, p, m, bin); err != nil {
			return err
		}
		b, err := os.ReadFile(bin)
		if err != nil {
			return fmt.Errorf("reading the %s binary: %w", platformString(p), err)
		}
		binaries[platformString(p)] = b
		log.Printf("compiled %s: %d bytes in %s", platformString(p), len(b), time.Since(start).Round(time.Millisecond))
	}

	idx, err := buildIndex(ps, binaries, caBundle, m)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	dir, err := writeLayout(*out, idx, m.Version)
	if err != nil {
		return err
	}
	digest, err := idx.Digest()
	if err != nil {
		return fmt.Errorf("index digest: %w", err)
	}
	log.Printf("OCI layout %s, tagged %s, index %s", dir, m.Version, digest)
	if err := writeArchives(*out, idx, m.Version); err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, dir)
	return err
}

// compile cross-compiles ipsync for p: static (no cgo, so no libc to
// ship), without the build machine's paths, symbols or VCS stamp (the
// commit comes in by -X, and a stamp would make the binary depend on
// untracked files), for the baseline CPU of the architecture whatever
// GOAMD64 or GOARM64 the caller's environment has.
func compile(src string, p v1.Platform, m meta, out string) error {
	ldflags := strings.Join([]string{"-s", "-w",
		"-X", module + "/internal/cli.Version=" + m.Version,
		"-X", module + "/internal/cli.Commit=" + m.Commit}, " ")
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", out, "./cmd/ipsync")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.OS, "GOARCH="+p.Architecture, "GOAMD64=v1", "GOARM64=v8.0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s: %w", platformString(p), err)
	}
	return nil
}

// writeLayout writes the OCI layout to out/oci through a new directory
// renamed into place, so that a failed build leaves the previous layout
// whole, and a new one carries no blobs of the old.
func writeLayout(out string, idx v1.ImageIndex, version string) (string, error) {
	tmp, err := os.MkdirTemp(out, "."+layoutIn+"-")
	if err != nil {
		return "", fmt.Errorf("layout: %w", err)
	}
	defer os.RemoveAll(tmp)
	p, err := layout.Write(tmp, empty.Index)
	if err != nil {
		return "", fmt.Errorf("layout: %w", err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{refName: version})); err != nil {
		return "", fmt.Errorf("layout: %w", err)
	}
	// The library writes blobs 0600 or 0755 and MkdirTemp makes 0700;
	// the layout is data, read by others too (a CI user, a registry push).
	err = filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o644)
		if d.IsDir() {
			mode = 0o755
		}
		return os.Chmod(path, mode)
	})
	if err != nil {
		return "", fmt.Errorf("layout permissions: %w", err)
	}
	dir := filepath.Join(out, layoutIn)
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("removing the previous layout: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("layout: %w", err)
	}
	return filepath.Abs(dir)
}

// writeArchives writes out/ipsync-<version>-<os>-<arch>.tar for each
// platform: `docker load` takes one platform's image, not an index.
func writeArchives(out string, idx v1.ImageIndex, version string) error {
	im, err := idx.IndexManifest()
	if err != nil {
		return fmt.Errorf("index manifest: %w", err)
	}
	tag, err := name.NewTag("ipsync:"+version, name.WithDefaultRegistry(""))
	if err != nil {
		return fmt.Errorf("archive tag: %w", err)
	}
	for _, d := range im.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			return fmt.Errorf("%s image: %w", platformString(*d.Platform), err)
		}
		path := filepath.Join(out, "ipsync-"+version+"-"+d.Platform.OS+"-"+d.Platform.Architecture+".tar")
		if err := tarball.WriteToFile(path, tag, img); err != nil {
			return fmt.Errorf("docker archive %s: %w", path, err)
		}
		st, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("docker archive: %w", err)
		}
		log.Printf("docker archive %s: %d bytes", path, st.Size())
	}
	return nil
}
