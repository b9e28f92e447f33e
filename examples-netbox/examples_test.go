package netboxexamples

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/examples"
)

// netboxUnfit are what the examples hold that NetBox has no place for,
// and ipsync refuses before writing: a namespace is a VRF, which has no
// location; an IP address's role is one of NetBox's fixed choices, not a
// role object; an ASN has no status.
var netboxUnfit = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^(  - \{name: [ab]\d\d, )location: [^,]+, `),
	regexp.MustCompile(`(?m)^(  - \{address: .*?)role: [a-z-]+, `),
	regexp.MustCompile(`(?m)^(  - \{asn: \d+, )status: \w+, `),
}

// TestNetBoxFlavourInStep: each file here is its namesake in examples/ without
// what NetBox has no place for, below a comment saying so; nothing else
// differs, so that an edit of the examples is made to both.
func TestNetBoxFlavourInStep(t *testing.T) {
	names, _ := fs.Glob(examples.Spec(), "*.yaml")
	flavour, _ := fs.Glob(Spec(), "*.yaml")
	if !slices.Equal(names, flavour) || len(names) == 0 {
		t.Fatalf("examples %v, NetBox flavour %v: want the same files", names, flavour)
	}
	for _, name := range names {
		orig, err := fs.ReadFile(examples.Spec(), name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fs.ReadFile(Spec(), name)
		if err != nil {
			t.Fatal(err)
		}
		want := string(orig)
		for _, re := range netboxUnfit {
			want = re.ReplaceAllString(want, "$1")
		}
		body := string(got)
		for strings.HasPrefix(body, "# The NetBox flavour") || strings.HasPrefix(body, "# location, an IP") {
			body = body[strings.Index(body, "\n")+1:]
		}
		if body != want {
			t.Errorf("examples-netbox/%s is not examples/%s without what NetBox has no place for; rewrite it from it", name, name)
		}
		if want == string(orig) {
			t.Errorf("%s holds nothing NetBox refuses: the flavour's rules no longer match it", name)
		}
	}
}
