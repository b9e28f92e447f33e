// Package examples holds the example spec of two sites, a11 and b22, and
// gives it to the binary, so that `ipsync demo` runs from any directory.
package examples

import (
	"embed"
	"io/fs"
)

//go:embed *.yaml
var files embed.FS

// Spec is the example spec files, at the root of the returned FS.
func Spec() fs.FS { return files }
