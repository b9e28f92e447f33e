package sot

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// fakeBootstrapper is a server's markers in memory: what Create and
// Extend write, Find finds.
type fakeBootstrapper struct {
	markers []Marker
	held    map[string]Found // by name
	anyType bool
	fail    string // "markers", "find", "create", "extend"
	writes  []string
	// rivals are made by another bootstrap just before this one's
	// Create of the same name, which the server then refuses.
	rivals map[string]Found
}

func (b *fakeBootstrapper) failing(step string) error {
	if b.fail == step {
		return errFake
	}
	return nil
}

func (b *fakeBootstrapper) Markers(context.Context, *httpapi.Tally) ([]Marker, error) {
	return b.markers, b.failing("markers")
}

func (b *fakeBootstrapper) Find(_ context.Context, _ *httpapi.Tally, m Marker) (Found, bool, error) {
	f, ok := b.held[m.Name]
	return f, ok, b.failing("find")
}

func (b *fakeBootstrapper) Create(_ context.Context, _ *httpapi.Tally, m Marker, types []string) error {
	if err := b.failing("create"); err != nil {
		return err
	}
	if f, ok := b.rivals[m.Name]; ok {
		b.held[m.Name] = f
		return errors.New("400 Bad Request: tag with this name already exists")
	}
	b.writes = append(b.writes, "create "+m.Name)
	b.held[m.Name] = Found{ID: m.Name, Type: m.Type, Types: slices.Clone(types)}
	return nil
}

func (b *fakeBootstrapper) Extend(_ context.Context, _ *httpapi.Tally, m Marker, f Found, types []string) error {
	if err := b.failing("extend"); err != nil {
		return err
	}
	b.writes = append(b.writes, "extend "+m.Name+" "+strings.Join(types, ","))
	f.Types = slices.Clone(types)
	b.held[m.Name] = f
	return nil
}

func (b *fakeBootstrapper) TypesName() string     { return "content types" }
func (b *fakeBootstrapper) AnyType(m Marker) bool { return b.anyType && m.What == "tag" }

var (
	tagMarker   = Marker{What: "tag", Name: "managed-by-ipsync", Types: []string{"ipam.vlan", "ipam.prefix"}}
	ownerMarker = Marker{What: "custom field", Name: "ipsync_owner", Type: "text", Owner: true, Types: []string{"ipam.vlan", "ipam.prefix"}}
)

func TestBootstrap(t *testing.T) {
	for _, tc := range []struct {
		name    string
		held    map[string]Found
		anyType bool
		commit  bool
		want    []string
		writes  []string
		fails   string
		rivals  map[string]Found
	}{
		{name: "another bootstrap made them first", held: map[string]Found{}, commit: true,
			rivals: map[string]Found{"managed-by-ipsync": {Types: tagMarker.Types}, "ipsync_owner": {Type: "text", FilterLogic: "exact", Types: []string{"ipam.vlan"}}},
			want:   []string{`content types ipam.prefix of custom field "ipsync_owner"`},
			writes: []string{"extend ipsync_owner ipam.vlan,ipam.prefix"}},
		{name: "another bootstrap made one of another type first", held: map[string]Found{}, commit: true,
			rivals: map[string]Found{"ipsync_owner": {Type: "integer"}},
			fails:  "Fakebox"},
		{name: "creates what is missing", held: map[string]Found{}, commit: true,
			want:   []string{`tag "managed-by-ipsync"`, `custom field "ipsync_owner"`},
			writes: []string{"create managed-by-ipsync", "create ipsync_owner"}},
		{name: "without commit only says", held: map[string]Found{}, commit: false,
			want: []string{`tag "managed-by-ipsync"`, `custom field "ipsync_owner"`}},
		{name: "adds missing types",
			held: map[string]Found{"managed-by-ipsync": {Types: []string{"ipam.vlan"}},
				"ipsync_owner": {Type: "text", FilterLogic: "exact", Types: []string{"ipam.prefix", "dcim.site"}}},
			commit: true,
			want: []string{`content types ipam.prefix of tag "managed-by-ipsync"`,
				`content types ipam.vlan of custom field "ipsync_owner"`},
			writes: []string{"extend managed-by-ipsync ipam.vlan,ipam.prefix",
				"extend ipsync_owner ipam.prefix,dcim.site,ipam.vlan"}},
		{name: "missing types without commit",
			held: map[string]Found{"managed-by-ipsync": {Types: []string{"ipam.vlan", "ipam.prefix"}},
				"ipsync_owner": {Type: "text", Types: []string{"ipam.prefix"}}},
			want: []string{`content types ipam.vlan of custom field "ipsync_owner"`}},
		{name: "a tag with no types is usable on any", anyType: true, commit: true,
			held: map[string]Found{"managed-by-ipsync": {}, "ipsync_owner": {Type: "text", Types: []string{"ipam.vlan", "ipam.prefix"}}}},
		{name: "a tag with no types where that means none", commit: true,
			held:   map[string]Found{"managed-by-ipsync": {}, "ipsync_owner": {Type: "text", Types: []string{"ipam.vlan", "ipam.prefix"}}},
			want:   []string{`content types ipam.vlan, ipam.prefix of tag "managed-by-ipsync"`},
			writes: []string{"extend managed-by-ipsync ipam.vlan,ipam.prefix"}},
		{name: "a field of another type", commit: true,
			held:  map[string]Found{"managed-by-ipsync": {Types: tagMarker.Types}, "ipsync_owner": {Type: "integer"}},
			fails: "Fakebox"},
		{name: "an owner field with loose filter logic", commit: true,
			held:  map[string]Found{"managed-by-ipsync": {Types: tagMarker.Types}, "ipsync_owner": {Type: "text", FilterLogic: "loose"}},
			fails: "exact"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &fakeBootstrapper{markers: []Marker{tagMarker, ownerMarker}, held: tc.held, anyType: tc.anyType, rivals: tc.rivals}
			got, err := Bootstrap(bg, b, "Fakebox", tc.commit)
			if tc.fails != "" {
				if err == nil || !strings.Contains(err.Error(), tc.fails) || !strings.Contains(err.Error(), "ipsync_owner") {
					t.Fatalf("Bootstrap = %q, %v; want an error naming the field and saying %q", got, err, tc.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Bootstrap = %q, want %q", got, tc.want)
			}
			if !slices.Equal(b.writes, tc.writes) {
				t.Errorf("writes = %q, want %q", b.writes, tc.writes)
			}
			if !tc.commit {
				return
			}
			b.writes = nil
			if again, err := Bootstrap(bg, b, "Fakebox", true); err != nil || len(again) != 0 || len(b.writes) != 0 {
				t.Errorf("second Bootstrap = %q, %v, writes %q; want nothing", again, err, b.writes)
			}
		})
	}
}

func TestBootstrapFails(t *testing.T) {
	for _, step := range []string{"markers", "find", "create", "extend"} {
		b := &fakeBootstrapper{markers: []Marker{tagMarker}, fail: step, held: map[string]Found{}}
		if step == "extend" {
			b.held["managed-by-ipsync"] = Found{Types: []string{"dcim.site"}}
		}
		if _, err := Bootstrap(bg, b, "Fakebox", true); !errors.Is(err, errFake) {
			t.Errorf("Bootstrap failing at %s = %v, want the error", step, err)
		}
	}
}

// TestWrite: a create whose answer was lost is not sent again when it
// turns out to be made; without a way to tell, it is.
func TestWrite(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers []int // status of each attempt
		exists  func(context.Context) (bool, error)
		sent    int
		fails   bool
	}{
		{name: "made", answers: []int{201}, sent: 1},
		{name: "refused", answers: []int{400}, sent: 1, fails: true},
		{name: "lost answer, made meanwhile", answers: []int{502, 201},
			exists: func(context.Context) (bool, error) { return true, nil }, sent: 1},
		{name: "lost answer, not made", answers: []int{502, 201},
			exists: func(context.Context) (bool, error) { return false, nil }, sent: 2},
		{name: "lost answer, no way to tell", answers: []int{502, 201}, sent: 2},
		{name: "lost answer, the check fails", answers: []int{502, 201},
			exists: func(context.Context) (bool, error) { return false, errFake }, sent: 1, fails: true},
		{name: "lost every time", answers: []int{502, 502, 502}, sent: 3, fails: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var bodies []string
			c, _ := client(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				bodies = append(bodies, r.Method+" "+r.URL.Path+" "+string(b))
				status := tc.answers[len(bodies)-1]
				mu.Unlock()
				writeJSON(w, status, `{}`)
			}), 2)
			err := Write(bg, c.Do, nil, http.MethodPost, "/api/extras/tags/", map[string]any{"name": "m"}, tc.exists)
			if (err != nil) != tc.fails {
				t.Errorf("Write = %v, want error %v", err, tc.fails)
			}
			if len(bodies) != tc.sent {
				t.Errorf("sent %d times, want %d", len(bodies), tc.sent)
			}
			for _, b := range bodies {
				if b != `POST /api/extras/tags/ {"name":"m"}` {
					t.Errorf("sent %s", b)
				}
			}
		})
	}
	if err := Write(bg, nil, nil, http.MethodPost, "/", map[string]any{"x": func() {}}, nil); err == nil {
		t.Error("Write of a body that is not JSON succeeded")
	}
}

// TestMarkers: the marker's objects, named by the settings, with the
// server's key for a custom field and what its tags need besides.
func TestMarkers(t *testing.T) {
	s := Settings{Tag: "managed", OwnerField: "owner", VNIField: "seg"}
	ms := s.Markers(MarkerPlace{Tags: "/tags/", CustomFields: "/cfs/", FieldKey: "name", PrefixType: "ipam.prefix",
		TagFields: map[string]any{"slug": "managed"}}, []string{"ipam.vlan", "ipam.prefix"})
	if len(ms) != 3 {
		t.Fatalf("%d markers, want the tag, the owner field and the VNI field", len(ms))
	}
	tag, owner, vni := ms[0], ms[1], ms[2]
	if tag.Path != "/tags/" || tag.Name != "managed" || tag.Create["slug"] != "managed" || tag.Create["name"] != "managed" || len(tag.Types) != 2 {
		t.Errorf("tag = %+v", tag)
	}
	if owner.Path != "/cfs/" || owner.Create["name"] != "owner" || owner.Type != "text" || !owner.Owner || owner.Create["filter_logic"] != "exact" || len(owner.Types) != 2 {
		t.Errorf("owner field = %+v", owner)
	}
	if vni.Create["name"] != "seg" || vni.Type != "integer" || vni.Owner || len(vni.Types) != 1 || vni.Types[0] != "ipam.prefix" {
		t.Errorf("VNI field = %+v", vni)
	}
}
