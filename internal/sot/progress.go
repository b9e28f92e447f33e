package sot

import "strings"

// Progress learns how far long reads and writes have got, for a display:
// a list of more than one page announces its total, and each page and
// each object written is added ("read nautobot vlans", "write vlan").
type Progress interface {
	Expect(label string, total int)
	Add(label string, n int)
}

// NoProgress is the Progress of a client nobody watches.
type NoProgress struct{}

func (NoProgress) Expect(string, int) {}
func (NoProgress) Add(string, int)    {}

// readLabel names a list for progress: "read nautobot vlans".
func readLabel(server, path string) string {
	p := strings.Trim(path, "/")
	return "read " + server + " " + p[strings.LastIndexByte(p, '/')+1:]
}
