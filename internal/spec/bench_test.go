package spec

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

// writeBenchSpec writes a spec of about n objects the shape of a large
// deploy repo: four sites, each a file with its namespace, ten VLAN groups,
// and of the objects 2% VLANs, 10% prefixes (one container, the rest
// networks, the first linked to VLANs) and 88% IP addresses. It returns
// the directory.
func writeBenchSpec(tb testing.TB, n int) string {
	tb.Helper()
	dir := tb.TempDir()
	const sites, groups = 4, 10
	nVLAN, nPrefix := n*2/100/sites, n*10/100/sites
	nIP := n/sites - nVLAN - nPrefix
	for s := range sites {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("site-%d.yaml", s)))
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriter(f)
		fmt.Fprintf(w, "namespaces:\n  - name: site-%d\n    location: DC-%d\n    description: site %d\nvlan_groups:\n", s, s, s)
		for g := range groups {
			fmt.Fprintf(w, "  - name: site-%d-leaf-%02d-network\n    location: DC-%d\n    range: \"100-3999\"\n    tags: [routed]\n", s, g, s)
		}
		fmt.Fprintf(w, "vlans:\n")
		for v := range nVLAN {
			fmt.Fprintf(w, "  - vid: %d\n    name: tenant-net-%d\n    vlan_group: site-%d-leaf-%02d-network\n    status: Active\n    tenant: platform\n",
				100+v/groups, v, s, v%groups)
		}
		fmt.Fprintf(w, "prefixes:\n  - {prefix: 10.%d.0.0/12, namespace: site-%d, type: container}\n", s*16, s)
		nets := nPrefix - 1
		for p := range nets {
			fmt.Fprintf(w, "  - prefix: 10.%d.%d.0/24\n    namespace: site-%d\n    location: DC-%d\n    tenant: platform\n", s*16+p/256, p%256, s, s)
			if p < nVLAN {
				fmt.Fprintf(w, "    vlan: site-%d-leaf-%02d-network/%d\n", s, p%groups, 100+p/groups)
			}
		}
		fmt.Fprintf(w, "ip_addresses:\n")
		for i := range nIP {
			p, host := i%nets, 10+i/nets
			fmt.Fprintf(w, "  - {address: 10.%d.%d.%d/24, namespace: site-%d, dns_name: host-%d.site-%d.example.net, tags: [tenant]}\n",
				s*16+p/256, p%256, host, s, i, s)
		}
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

func BenchmarkLoad100k(b *testing.B) {
	dir := writeBenchSpec(b, 100_000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		objs, diags, err := Load([]string{dir}, owner)
		if err != nil || len(diags) != 0 {
			b.Fatalf("Load = %v, %v", diags[:min(len(diags), 5)], err)
		}
		if len(objs) < 100_000 {
			b.Fatalf("Load = %d objects, want 100k", len(objs))
		}
	}
}

// BenchmarkValidate100k is the cross-object checks alone, which must stay
// n log n; Load's remaining time is YAML decoding.
func BenchmarkValidate100k(b *testing.B) {
	files, err := Files([]string{writeBenchSpec(b, 100_000)})
	if err != nil {
		b.Fatal(err)
	}
	results, err := parseFiles(files, owner)
	if err != nil {
		b.Fatal(err)
	}
	var objs []resource.Object
	var fields [][]fieldPos
	for _, r := range results {
		objs, fields = append(objs, r.objs...), append(fields, r.fields...)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if diags := validate(objs, fields, nil, true); len(diags) != 0 {
			b.Fatalf("validate = %v", diags[:min(len(diags), 5)])
		}
	}
}
