package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

const owner = resource.Owner("static:test")

func countKinds(objs []resource.Object) map[resource.Kind]int {
	got := map[resource.Kind]int{}
	for _, o := range objs {
		got[o.Kind()]++
	}
	return got
}

func TestLoadValidCorpus(t *testing.T) {
	objs, diags, err := Load([]string{"testdata/valid"}, owner)
	if err != nil || len(diags) != 0 {
		t.Fatalf("Load(testdata/valid) = %v, %v; want no problems", diags, err)
	}
	want := map[resource.Kind]int{resource.KindNamespace: 2, resource.KindVLANGroup: 3, resource.KindVLAN: 5,
		resource.KindPrefix: 9, resource.KindIPAddress: 6, resource.KindSegmentRange: 7, resource.KindASN: 2}
	if got := countKinds(objs); !maps.Equal(got, want) {
		t.Errorf("Load(testdata/valid) counts = %v, want %v", got, want)
	}
	for _, o := range objs {
		m := o.Meta()
		if m.Owner != owner {
			t.Errorf("%s: owner = %q, want %q", o.Key(), m.Owner, owner)
		}
		if !strings.HasPrefix(m.Source.File, "testdata/valid/") || m.Source.Line < 1 || m.Source.Col < 1 {
			t.Errorf("%s: source = %v, want a place under testdata/valid/", o.Key(), m.Source)
		}
	}
}

func TestLoadExamples(t *testing.T) {
	dir := filepath.Join("..", "..", "examples")
	objs, diags, err := Load([]string{dir}, owner)
	if err != nil || len(diags) != 0 {
		t.Fatalf("Load(%s) = %v, %v; want no problems", dir, diags, err)
	}
	got := countKinds(objs)
	for _, k := range resource.Kinds() {
		// Address scopes come from the pools' namespaces, never a spec.
		if got[k] == 0 && k != resource.KindAddressScope {
			t.Errorf("examples declare no %s; they should show every kind", k)
		}
	}
	if len(objs) < 40 || len(objs) > 80 {
		t.Errorf("examples hold %d objects, want 40-80", len(objs))
	}
}

// TestDecodedValues checks defaults, merges, sets and the two ways of
// writing a VLAN reference.
func TestDecodedValues(t *testing.T) {
	objs, diags, err := Load([]string{"testdata/valid"}, owner)
	if err != nil || len(diags) != 0 {
		t.Fatalf("Load = %v, %v", diags, err)
	}
	byKey := map[resource.Key]resource.Object{}
	for _, o := range objs {
		byKey[o.Key()] = o
	}
	get := func(k resource.Kind, name string) resource.Object {
		t.Helper()
		o, ok := byKey[resource.Key{Kind: k, Name: name}]
		if !ok {
			t.Fatalf("no %s %s in %v", k, name, slices.Collect(maps.Keys(byKey)))
		}
		return o
	}
	g := get(resource.KindVLANGroup, "a11-13-network").(*resource.VLANGroup)
	if g.Range.String() != "100-199,300-310" || g.Location != "DC-A11" || !slices.Equal(g.Tags, []string{"leaf", "routed"}) {
		t.Errorf("merged group = %+v, want range 100-199,300-310, location DC-A11, tags leaf,routed", g)
	}
	if g := get(resource.KindVLANGroup, "b22-1-network").(*resource.VLANGroup); g.Range.String() != "1-4094" {
		t.Errorf("default range = %s, want 1-4094", g.Range)
	}
	v := get(resource.KindVLAN, "a11-13-network/100").(*resource.VLAN)
	if v.Name != "provisioning" || v.Status != DefaultStatus || v.Role != "provisioning" {
		t.Errorf("merged vlan = %+v, want name provisioning, status Active, role provisioning", v)
	}
	if v := get(resource.KindVLAN, "a11-12-network/301").(*resource.VLAN); v.Name != "301" || v.Status != "Reserved" {
		t.Errorf("vlan 0x12d = %+v, want name \"301\", status Reserved", v)
	}
	if v := get(resource.KindVLAN, "b22-1-network/4094").(*resource.VLAN); !slices.Equal(v.Tags, []string{"a", "b"}) {
		t.Errorf("tags = %q, want [a b]", v.Tags)
	}
	get(resource.KindVLAN, "a11-12-network/101") // from the second document
	p := get(resource.KindPrefix, "a11/10.11.12.0/24").(*resource.Prefix)
	if p.VLAN != "a11-12-network/100" || p.Type != resource.PrefixNetwork || !slices.Equal(p.Locations, []string{"DC-A11", "DC-A12"}) {
		t.Errorf("prefix = %+v, want vlan a11-12-network/100, type network, locations DC-A11,DC-A12", p)
	}
	if p := get(resource.KindPrefix, "a11/10.11.13.0/24").(*resource.Prefix); p.VLAN != "a11-13-network/100" || p.VNI != 10013 {
		t.Errorf("prefix = %+v, want vlan a11-13-network/100 (from a mapping), vni 10013", p)
	}
	if p := get(resource.KindPrefix, "Global/10.250.0.0/16").(*resource.Prefix); p.Status != DefaultStatus {
		t.Errorf("prefix status = %q, want %q", p.Status, DefaultStatus)
	}
	ip := get(resource.KindIPAddress, "a11/10.11.12.254").(*resource.IPAddress)
	if ip.Address != netip.MustParsePrefix("10.11.12.254/25") {
		t.Errorf("address = %s, want the host with its own mask, 10.11.12.254/25", ip.Address)
	}
	s := get(resource.KindSegmentRange, "a11-vni").(*resource.SegmentRange)
	if !s.Shared || s.NetworkType != resource.NetworkVXLAN || s.Minimum != 10000 || s.Maximum != 19999 {
		t.Errorf("segment range = %+v, want shared vxlan 10000-19999", s)
	}
	if s := get(resource.KindSegmentRange, "a11-private").(*resource.SegmentRange); s.Shared || s.Project == "" {
		t.Errorf("segment range = %+v, want not shared, with a project", s)
	}
	if a := get(resource.KindASN, "4200000000").(*resource.ASN); a.Status != "Reserved" {
		t.Errorf("asn status = %q, want Reserved", a.Status)
	}
}

// TestAllProblemsReported wants every problem of a file, not the first.
func TestAllProblemsReported(t *testing.T) {
	data := []byte(`vlan_groups:
  - {name: g, range: "100-199"}
vlans:
  - {vid: 100, name: a, vlan_group: g, colour: red}
  - {vid: 5000, name: b, vlan_group: g}
  - {vid: 101, vlan_group: g}
  - {vid: 102, name: d, vlan_group: nope}
  - {vid: 150, name: e, vlan_group: g, tags: x}
prefixes:
  - {prefix: 10.0.0.1/24}
  - {prefix: 10.1.0.0/24, namespace: missing, type: netwrok}
`)
	path := filepath.Join(t.TempDir(), "many.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, diags, err := Load([]string{path}, owner)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line  int
		field string
	}{{4, "colour"}, {5, "vid"}, {6, "name"}, {7, "vlan_group"}, {8, "tags"}, {10, "prefix"}, {11, "namespace"}, {11, "type"}}
	if len(diags) != len(want) {
		t.Fatalf("Load = %d diagnostics, want %d:\n%v", len(diags), len(want), diags)
	}
	for i, w := range want {
		if d := diags[i]; d.File != path || d.Line != w.line || d.Field != w.field {
			t.Errorf("diagnostic %d = %s, want line %d field %s", i, d, w.line, w.field)
		}
	}
	if got := strings.Count(diags.Error(), "\n") + 1; got != len(want) {
		t.Errorf("Error() has %d lines, want %d", got, len(want))
	}
}

// TestBrokenItemStillDeclared: a group with a bad field is reported once,
// and its VLANs are not reported again for naming it.
func TestBrokenItemStillDeclared(t *testing.T) {
	_, diags := Parse("x.yaml", []byte("vlan_groups:\n  - {name: g, range: \"9-1\"}\n"), owner)
	objs, vdiags := Parse("y.yaml", []byte("vlans:\n  - {vid: 1, name: a, vlan_group: g}\n"), owner)
	if len(diags) != 1 || len(vdiags) != 0 || len(objs) != 1 {
		t.Fatalf("Parse = %v / %v, want one range problem and a clean vlan", diags, vdiags)
	}
	dir := t.TempDir()
	for name, body := range map[string]string{"x.yaml": "vlan_groups:\n  - {name: g, range: \"9-1\"}\n", "y.yaml": "vlans:\n  - {vid: 1, name: a, vlan_group: g}\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, all, err := Load([]string{dir}, owner)
	if err != nil || len(all) != 1 || all[0].Field != "range" {
		t.Errorf("Load = %v, %v; want only the range problem", all, err)
	}
}

func TestDirectoryWalk(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"b.yaml":                 "namespaces: [{name: b}]\n",
		"a.yml":                  "namespaces: [{name: a}]\n",
		"sub/c.yaml":             "namespaces: [{name: c}]\n",
		"sub/deeper/0.YAML":      "namespaces: [{name: d}]\n",
		"notes.txt":              "not yaml: [\n",
		".github/workflows.yaml": "on: push\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// The directory given twice, and one of its files again: each file is
	// read once.
	objs, diags, err := Load([]string{dir, dir, filepath.Join(dir, "a.yml")}, owner)
	if err != nil || len(diags) != 0 {
		t.Fatalf("Load = %v, %v", diags, err)
	}
	var got []string
	for _, o := range objs {
		rel, _ := filepath.Rel(dir, o.Meta().Source.File)
		got = append(got, o.Key().Name+"@"+filepath.ToSlash(rel))
	}
	want := []string{"a@a.yml", "b@b.yaml", "c@sub/c.yaml", "d@sub/deeper/0.YAML"}
	if !slices.Equal(got, want) {
		t.Errorf("Load order = %q, want %q", got, want)
	}
}

func TestLoadPathErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	if _, _, err := Load([]string{missing}, owner); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
		t.Errorf("Load(missing) error = %v, want not-exist naming %s", err, missing)
	}
	empty := t.TempDir()
	if _, _, err := Load([]string{empty}, owner); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("Load(empty dir) error = %v, want an error naming %s", err, empty)
	}
}

func TestRelativePathsKept(t *testing.T) {
	_, diags, err := Load([]string{"./testdata/invalid-cidr.yaml"}, owner)
	if err != nil || len(diags) != 1 {
		t.Fatalf("Load = %v, %v", diags, err)
	}
	if got := diags[0].File; got != "./testdata/invalid-cidr.yaml" {
		t.Errorf("File = %q, want the path as given", got)
	}
}

func TestEmptyAndNullDocuments(t *testing.T) {
	for _, in := range []string{"", "# only a comment\n", "---\n---\n", "namespaces:\nvlans: []\n"} {
		objs, diags := Parse("e.yaml", []byte(in), owner)
		if len(objs) != 0 || len(diags) != 0 {
			t.Errorf("Parse(%q) = %v, %v; want nothing", in, objs, diags)
		}
	}
}

// TestMergedAnchorReportedOnce: a bad field in an anchor merged by many
// items is one problem at one place.
func TestMergedAnchorReportedOnce(t *testing.T) {
	in := "vlans:\n  - &d {vid: 1, name: a, vlan_group: g, colour: red}\n  - {<<: *d, vid: 2}\n  - {<<: *d, vid: 3}\nvlan_groups: [{name: g}]\n"
	_, diags := Parse("m.yaml", []byte(in), owner)
	if len(diags) != 1 || diags[0].Field != "colour" || diags[0].Line != 2 {
		t.Errorf("Parse = %v, want one unknown field at line 2", diags)
	}
}

func TestValidateObjectsFromCode(t *testing.T) {
	src := func(line int) resource.Meta {
		return resource.Meta{Source: resource.Source{File: "gen", Line: line, Col: 1}}
	}
	objs := []resource.Object{
		&resource.Prefix{M: src(1), Namespace: DefaultNamespace, Prefix: netip.MustParsePrefix("10.0.0.0/16"), Type: resource.PrefixNetwork},
		&resource.Prefix{M: src(2), Namespace: DefaultNamespace, Prefix: netip.MustParsePrefix("10.0.1.0/24"), Type: resource.PrefixNetwork},
		&resource.IPAddress{M: src(3), Namespace: DefaultNamespace, Address: netip.MustParsePrefix("192.168.0.1/24")},
		&resource.SegmentRange{M: src(4), Name: "a", NetworkType: resource.NetworkVXLAN, Minimum: 1, Maximum: 100},
		&resource.SegmentRange{M: src(5), Name: "b", NetworkType: resource.NetworkVXLAN, Minimum: 50, Maximum: 60},
		&resource.SegmentRange{M: src(6), Name: "c", NetworkType: resource.NetworkVXLAN, Minimum: 80, Maximum: 200},
	}
	diags := Validate(objs)
	var got []int
	for _, d := range diags {
		got = append(got, d.Line)
	}
	if want := []int{2, 3, 5, 6}; !slices.Equal(got, want) {
		t.Errorf("Validate lines = %v, want %v:\n%v", got, want, diags)
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestDuplicateAcrossFiles(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.yaml": "vlan_groups: [{name: g}]\nvlans:\n  - {vid: 7, name: x, vlan_group: g}\n",
		"b.yaml": "vlans:\n  - {vid: 8, name: y, vlan_group: g}\n  - {vid: 7, name: z, vlan_group: g}\n",
	})
	_, diags, err := Load([]string{dir}, owner)
	if err != nil || len(diags) != 1 {
		t.Fatalf("Load = %v, %v; want one duplicate", diags, err)
	}
	d, first := diags[0], filepath.Join(dir, "a.yaml")+":3:5"
	if d.File != filepath.Join(dir, "b.yaml") || d.Line != 3 || d.Field != "vid" || !strings.Contains(d.Message, "duplicate vlan g/7, first declared at "+first) {
		t.Errorf("Load = %s, want b.yaml:3 vid: duplicate vlan g/7, first declared at %s", d, first)
	}
}

// TestEveryReferenceReported: each object naming an undeclared namespace
// is a problem of its own, and an IP there is not also called outside.
func TestEveryReferenceReported(t *testing.T) {
	in := "prefixes:\n  - {prefix: 10.0.0.0/24, namespace: zz}\nip_addresses:\n  - {address: 10.0.0.1/24, namespace: zz}\n  - {address: 10.0.0.2/24, namespace: zz}\n  - {address: 10.0.0.3/24}\n"
	dir := writeFiles(t, map[string]string{"r.yaml": in})
	_, diags, err := Load([]string{dir}, owner)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diags {
		got = append(got, fmt.Sprintf("%d:%s", d.Line, d.Field))
	}
	if want := []string{"2:namespace", "4:namespace", "5:namespace", "6:address"}; !slices.Equal(got, want) {
		t.Errorf("Load = %v, want problems at %v:\n%v", got, want, diags)
	}
}

func TestSelfMergingAnchor(t *testing.T) {
	objs, diags := Parse("c.yaml", []byte("namespaces:\n  - &a {name: x, <<: *a}\n"), owner)
	if len(objs) != 0 || len(diags) != 1 || diags[0].Field != "<<" {
		t.Errorf("Parse = %v, %v; want one problem with the merge", objs, diags)
	}
}

// TestMergeFanOut: a few lines of aliases must not expand into millions
// of merges.
func TestMergeFanOut(t *testing.T) {
	in := "x: &a0 {description: d}\n"
	for i := 1; i <= 6; i++ {
		in += fmt.Sprintf("y%d: &a%d {<<: [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]}\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	in += "namespaces:\n  - {name: n, <<: *a6}\n"
	_, diags := Parse("f.yaml", []byte(in), owner)
	var merge int
	for _, d := range diags {
		if d.Field == "<<" {
			merge++
		}
	}
	if merge != 1 {
		t.Errorf("Parse = %v, want one problem with the merge", diags)
	}
}

// TestSyntaxErrorHidesOnlyReferences: when a file cannot be read, what it
// declares is unknown, so references are not reported, but other files'
// problems still are.
func TestSyntaxErrorHidesOnlyReferences(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a.yaml": "vlan_groups:\n  - {name: g\n",
		"b.yaml": "vlans:\n  - {vid: 7, name: x, vlan_group: g}\n  - {vid: 9000, name: y, vlan_group: g}\n",
	})
	_, diags, err := Load([]string{dir}, owner)
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) != 2 || !strings.Contains(diags[0].Message, "YAML syntax error") || diags[1].Field != "vid" {
		t.Errorf("Load = %v, want the syntax error and the vid out of bounds only", diags)
	}
}

// TestConfigMapMount loads a directory laid out as the kubelet mounts a
// ConfigMap (each key a link through ..data to a hidden, timestamped
// directory), reached itself through a link as a git-sync checkout is:
// each file once, named by the path as given.
func TestConfigMapMount(t *testing.T) {
	base := t.TempDir()
	mount := filepath.Join(base, "mount")
	stamp := filepath.Join(mount, "..2026_12_06_06_40_00.1")
	if err := os.MkdirAll(stamp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stamp, "a.yaml"), []byte("namespaces: [{name: a}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct{ target, name string }{
		{"..2026_12_06_06_40_00.1", filepath.Join(mount, "..data")},
		{"..data/a.yaml", filepath.Join(mount, "a.yaml")},
		{mount, filepath.Join(base, "link")},
	} {
		if err := os.Symlink(l.target, l.name); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{mount, filepath.Join(base, "link"), filepath.Join(base, "link") + "/"} {
		objs, diags, err := Load([]string{dir}, owner)
		if err != nil || len(diags) != 0 || len(objs) != 1 {
			t.Fatalf("Load(%s) = %v, %v, %v; want namespace a once", dir, objs, diags, err)
		}
		if got, want := objs[0].Meta().Source.File, filepath.Join(dir, "a.yaml"); got != want {
			t.Errorf("Load(%s): source %s, want %s", dir, got, want)
		}
	}
}
