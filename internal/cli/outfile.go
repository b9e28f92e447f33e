package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// outFile is what --out names, being made: a temporary file beside its
// path, made before the command reads anything (a plan may read for
// minutes; a file that cannot be made is said at once), and renamed onto
// the path once whole, so that apply --plan never reads half a plan and an
// older file stays until the new one is done. A nil outFile (no --out)
// writes nothing.
type outFile struct {
	path string
	tmp  *os.File
	// direct: path is not a regular file (/dev/stdout, a pipe), written
	// as it is.
	direct bool
}

// createOutFile makes the temporary file of path; nil for "".
func createOutFile(path string) (*outFile, error) {
	if path == "" {
		return nil, nil
	}
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		return nil, usagef("--out %s is a directory: name a file", path)
	}
	if err == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, usagef("--out %s: cannot write there: %w", path, err)
		}
		return &outFile{path: path, tmp: f, direct: true}, nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, usagef("--out %s: cannot write there: %w", path, err)
	}
	return &outFile{path: path, tmp: tmp}, nil
}

// write fills the file with what fn writes and puts it at its path.
func (f *outFile) write(fn func(io.Writer) error) error {
	if f == nil {
		return nil
	}
	// As os.Create would have made it: a plan or a report holds no
	// secret, and a CI job's next step may run as another user.
	var err error
	if !f.direct {
		err = f.tmp.Chmod(0o644)
	}
	if err == nil {
		err = fn(f.tmp)
	}
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil && !f.direct {
		err = os.Rename(f.tmp.Name(), f.path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	f.tmp = nil
	return nil
}

// discard removes the temporary file of what was never written.
func (f *outFile) discard() {
	if f != nil && f.tmp != nil {
		f.tmp.Close()
		if !f.direct {
			os.Remove(f.tmp.Name())
		}
	}
}
