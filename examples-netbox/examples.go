// Package netboxexamples is the example spec as NetBox takes it: the
// examples without what NetBox has no place for (a VRF's location, an IP
// address's role object, an ASN's status), for the NetBox tests and
// `ipsync demo --target netbox`. It sits beside examples/, not in it, so
// that a run over examples/ does not read both.
package netboxexamples

import (
	"embed"
	"io/fs"
)

//go:embed *.yaml
var files embed.FS

// Spec is the NetBox flavour's files, at the root of the returned FS.
func Spec() fs.FS { return files }
