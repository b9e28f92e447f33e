// Package specwatch tells when the static spec's files change, for the
// reconciler that applies them continuously. It polls a fingerprint of
// the files' names and contents rather than watching for file events: a
// ConfigMap volume changes by swapping a symbolic link (..data) to a new
// directory, a git-sync checkout by swapping its link to a new worktree,
// and neither shows as a write to the files the spec names; reading them
// again shows any change however it was made.
package specwatch

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"time"

	"github.com/ipsync/ipsync/internal/clock"
	"github.com/ipsync/ipsync/internal/spec"
)

// Fingerprint identifies the spec's files as they were read.
type Fingerprint [sha256.Size]byte

// Of reads the spec's files (the paths as spec.Load takes them) and
// returns their fingerprint.
func Of(paths []string) (Fingerprint, error) {
	files, err := spec.Files(paths)
	if err != nil {
		return Fingerprint{}, err
	}
	h := sha256.New()
	var n [8]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return Fingerprint{}, fmt.Errorf("read spec: %w", err)
		}
		for _, part := range [][]byte{[]byte(f), b} {
			binary.BigEndian.PutUint64(n[:], uint64(len(part)))
			h.Write(n[:])
			h.Write(part)
		}
	}
	var fp Fingerprint
	h.Sum(fp[:0])
	return fp, nil
}

// attempts bounds how often Stable reads a spec that keeps changing.
const attempts = 5

// Stable runs load, which reads the spec's files, between two readings of
// their fingerprint, and again while the two differ: a swap in the middle
// of load could otherwise mix the files of two versions, and a spec half
// old and half new can plan deletes of what only moved between files. It
// returns the fingerprint load saw.
func Stable(paths []string, load func() error) (Fingerprint, error) {
	for range attempts {
		before, err := Of(paths)
		if err != nil {
			return Fingerprint{}, err
		}
		if err := load(); err != nil {
			return Fingerprint{}, err
		}
		after, err := Of(paths)
		if err != nil {
			return Fingerprint{}, err
		}
		if before == after {
			return after, nil
		}
	}
	return Fingerprint{}, fmt.Errorf("the spec changed while it was read, %d times in a row; trying again at the next change or interval", attempts)
}

// Watch reads the fingerprint every interval until ctx is done and calls
// changed each time it differs from the one before (the first from
// initial). A read that fails counts as a change once, so that the sync
// it causes reports what is wrong; the next good read counts again.
func Watch(ctx context.Context, clk clock.Clock, paths []string, every time.Duration, initial Fingerprint, changed func()) {
	last, failed := initial, false
	for clock.Sleep(ctx, clk, every) == nil {
		fp, err := Of(paths)
		switch {
		case err != nil && !failed:
			failed = true
			changed()
		case err == nil && (failed || fp != last):
			failed, last = false, fp
			changed()
		}
	}
}
