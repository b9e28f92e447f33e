package plan

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

// TestFingerprintNamesTheWrites checks that the fingerprint changes with
// every write and every field of one, old or new, and with nothing else.
func TestFingerprintNamesTheWrites(t *testing.T) {
	base := goldenPlan().Fingerprint()
	if !strings.HasPrefix(base, "sha256:") || len(base) != len("sha256:")+64 {
		t.Fatalf("fingerprint %q: want sha256: and 64 hex digits", base)
	}
	tests := []struct {
		name string
		edit func(p *Plan)
		same bool
	}{
		{"made again", func(*Plan) {}, true},
		{"changes in another order", func(p *Plan) {
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(p.Changes), func(i, j int) { p.Changes[i], p.Changes[j] = p.Changes[j], p.Changes[i] })
		}, true},
		{"more noops and owned objects", func(p *Plan) {
			p.Owned += 40
			p.Summary[resource.KindVLAN][Noop] += 40
		}, true},
		{"leaks and refusals", func(p *Plan) {
			p.Leaks = nil
			p.Refusals = append(p.Refusals, "another reason")
		}, true},
		{"a conflict more", func(p *Plan) {
			p.Changes = append(p.Changes, Change{Action: Conflict, Key: resource.Key{Kind: resource.KindPrefix, Name: "a11/10.99.0.0/24"}})
		}, true},
		{"a new value", func(p *Plan) { p.Changes[1].Fields[0].New = "storage-2" }, false},
		{"an old value (the target moved)", func(p *Plan) { p.Changes[1].Fields[0].Old = "storage-older" }, false},
		{"a field more", func(p *Plan) {
			p.Changes[1].Fields = append(p.Changes[1].Fields, resource.FieldDiff{Field: "status", Old: "Active", New: "Reserved"})
		}, false},
		{"a write less", func(p *Plan) { p.Changes = p.Changes[1:] }, false},
		{"another action", func(p *Plan) { p.Changes[1].Action = Adopt }, false},
		{"another owner", func(p *Plan) { p.Policy.Owner = "static:other" }, false},
		{"another mode", func(p *Plan) { p.Policy.Mode = ModeUpsertOnly }, false},
		{"an interim value", func(p *Plan) {
			p.Changes[1].Interim = []resource.FieldDiff{{Field: "name", Old: "storage-old", New: "storage-old~"}}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := goldenPlan()
			if p.Changes[1].Action != Update || len(p.Changes[1].Fields) == 0 {
				t.Fatalf("the golden plan's second change is %s %s: the edits expect an update", p.Changes[1].Action, p.Changes[1].Key)
			}
			tt.edit(p)
			if got := p.Fingerprint(); (got == base) != tt.same {
				t.Errorf("fingerprint %s, before %s: same = %t, want %t", got, base, got == base, tt.same)
			}
		})
	}
}

func TestUnreviewed(t *testing.T) {
	p := goldenPlan()
	fp := p.Fingerprint()
	other := "sha256:" + strings.Repeat("0", 64)
	if got := p.Unreviewed(fp); got != "" {
		t.Errorf("the reviewed plan itself: %q", got)
	}
	got := p.Unreviewed(other)
	for _, want := range []string{fp, other, "changed since the review", "ipsync plan -o markdown"} {
		if !strings.Contains(got, want) {
			t.Errorf("Unreviewed = %q, want it to name %q", got, want)
		}
	}
	empty := Make(nil, nil, DefaultPolicy(me))
	if got := empty.Unreviewed(other); got != "" {
		t.Errorf("a plan that writes nothing needs no review, got %q", got)
	}
}

func TestParseFingerprint(t *testing.T) {
	good := "sha256:" + strings.Repeat("ab", 32)
	tests := []struct {
		in   string
		want string
	}{
		{good, good},
		{good + "\n", good},
		{"  " + strings.ToUpper(good[len("sha256:"):]), ""},
		{"sha256:" + strings.Repeat("AB", 32), good},
		{"sha256:abc", ""},
		{"md5:" + strings.Repeat("ab", 32), ""},
		{"", ""},
		{"sha256:" + strings.Repeat("zz", 32), ""},
	}
	for _, tt := range tests {
		got, err := ParseFingerprint(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("ParseFingerprint(%q) = %q, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseFingerprint(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestMarkdownStaysReadableAt50000 renders a plan of 50,000 writes of
// three kinds and a few deletes: it fits a review comment, names every
// count, shows each kind some of its changes and says how many it left
// out, and its code blocks and folds are closed.
func TestMarkdownStaysReadableAt50000(t *testing.T) {
	var desired, current []resource.Object
	for i := range 30000 {
		desired = append(desired, ip(me, fmt.Sprintf("10.%d.%d.%d/16", 20+i/65536, (i/256)%256, i%256)))
	}
	for i := range 19000 {
		desired = append(desired, prefix(me, fmt.Sprintf("10.%d.%d.0/24", 100+i/256, i%256)))
	}
	for vid := range 1000 {
		desired = append(desired, vlan(me, "a11-12-network", uint16(1000+vid), fmt.Sprintf("v%d", vid)))
	}
	for vid := range 12 {
		current = append(current, vlan(me, "a11-12-network", uint16(3000+vid), fmt.Sprintf("old%d", vid)))
	}
	p := Make(desired, current, DefaultPolicy(me))
	var b strings.Builder
	if err := p.WriteMarkdown(&b, Markdown{Target: "https://nautobot.example.com"}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if len(md) > DefaultMarkdownBytes {
		t.Errorf("%d bytes, want at most %d", len(md), DefaultMarkdownBytes)
	}
	for _, want := range []string{
		"**50000 to create, 12 to delete**",
		"| **total** | 50000 | 0 | 0 | **12** | 0 | 0 | 0 |",
		"**12 deletes**",
		"- vlan a11-12-network/3011",
		"<b>ip_address</b>: 30000 create",
		"<b>prefix</b>: 19000 create",
		"… and 29900 more ip_address changes",
		"Plan fingerprint: `" + p.Fingerprint() + "`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the rendering lacks %q", want)
		}
	}
	if n := strings.Count(md, "<details"); n != strings.Count(md, "</details>") {
		t.Errorf("%d <details> opened, %d closed", n, strings.Count(md, "</details>"))
	}
	fences := 0
	for line := range strings.SplitSeq(md, "\n") {
		if strings.HasPrefix(line, "```") {
			fences++
		}
	}
	if fences%2 != 0 {
		t.Errorf("%d fence lines: a code block is left open", fences)
	}
}

// TestMarkdownEscapes keeps markup in values and reasons from escaping
// their place: a backtick run in a value lengthens the fence, and a
// refusal's own markup shows as text.
func TestMarkdownEscapes(t *testing.T) {
	v := vlan(me, "a11-12-network", 101, "x")
	v.Description = "see ```this``` <b>bold</b>"
	p := Make(objs(v), nil, DefaultPolicy(me))
	p.Refusals = []string{"a <script> and *stars* | pipes"}
	var b strings.Builder
	if err := p.WriteMarkdown(&b, Markdown{}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"````diff\n", "> - a \\<script\\> and \\*stars\\* \\| pipes\n", `+     description: "see `} {
		if !strings.Contains(md, want) {
			t.Errorf("the rendering lacks %q:\n%s", want, md)
		}
	}
}
