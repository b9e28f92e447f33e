package sot

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ipsync/ipsync/internal/changelog"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

func TestKindsOf(t *testing.T) {
	for _, tc := range []struct {
		kinds []resource.Kind
		want  []resource.Kind
		fails bool
	}{
		{nil, Kinds(), false},
		{[]resource.Kind{resource.KindPrefix, resource.KindVLAN}, []resource.Kind{resource.KindPrefix, resource.KindVLAN}, false},
		{[]resource.Kind{resource.KindVLAN, resource.KindSegmentRange}, nil, true},
		{[]resource.Kind{"bogus"}, nil, true},
	} {
		got, err := KindsOf(scope.Scope{Kinds: tc.kinds}, "netbox")
		if tc.fails {
			if err == nil || !strings.Contains(err.Error(), "netbox holds no") {
				t.Errorf("KindsOf(%v) = %v, %v; want a refusal naming the server", tc.kinds, got, err)
			}
			if or := KindsOr(scope.Scope{Kinds: tc.kinds}); !slices.Equal(or, Kinds()) {
				t.Errorf("KindsOr(%v) = %v, want every kind", tc.kinds, or)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("KindsOf(%v) = %v, %v; want %v", tc.kinds, got, err, tc.want)
		}
		if or := KindsOr(scope.Scope{Kinds: tc.kinds}); !slices.Equal(or, tc.want) {
			t.Errorf("KindsOr(%v) = %v, want %v", tc.kinds, or, tc.want)
		}
	}
	for _, k := range resource.Kinds() {
		err := Holds("nautobot", k)
		if want := !k.NeutronOnly(); (err == nil) != want {
			t.Errorf("Holds(%s) = %v, want held %v", k, err, want)
		}
	}
}

// TestSweep: only the kinds both asked and selected are read, by the
// selection's filters, ids a chunk at a time; a failed read fails the
// sweep.
func TestSweep(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	read := func(k resource.Kind, into *[]string) KindRead {
		return Into(k, into, 2, func(_ context.Context, extra url.Values) ([]string, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, fmt.Sprintf("%s %s", k, extra.Encode()))
			if k == resource.KindASN {
				return nil, errFake
			}
			return extra["id"], nil
		})
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		kinds []resource.Kind
		sel   changelog.Select
		asked []string
		vlans []string
		fails bool
	}{
		{name: "whole", kinds: []resource.Kind{resource.KindVLAN, resource.KindPrefix},
			asked: []string{"prefix ", "vlan "}},
		{name: "kinds not asked are not read", kinds: []resource.Kind{resource.KindVLAN},
			asked: []string{"vlan "}},
		{name: "by ids", kinds: []resource.Kind{resource.KindVLAN, resource.KindPrefix},
			sel:   changelog.Select{IDs: map[resource.Kind][]string{resource.KindVLAN: {"1", "2", "3"}}},
			asked: []string{"vlan id=1&id=2", "vlan id=3"}, vlans: []string{"1", "2", "3"}},
		{name: "by stamp", kinds: []resource.Kind{resource.KindVLAN, resource.KindPrefix},
			sel:   changelog.Select{Since: map[resource.Kind]time.Time{resource.KindPrefix: at}},
			asked: []string{"prefix last_updated__gte=2026-01-01T00%3A00%3A00Z"}},
		{name: "a read fails", kinds: []resource.Kind{resource.KindVLAN, resource.KindASN},
			asked: []string{"asn ", "vlan "}, fails: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked = nil
			var vlans, prefixes, asns []string
			err := Sweep(bg, 1, tc.kinds, tc.sel, read(resource.KindVLAN, &vlans), read(resource.KindPrefix, &prefixes),
				read(resource.KindASN, &asns))
			if tc.fails != errors.Is(err, errFake) {
				t.Errorf("Sweep = %v, want failing %v", err, tc.fails)
			}
			slices.Sort(asked)
			if !tc.fails && !slices.Equal(asked, tc.asked) {
				t.Errorf("asked %q, want %q", asked, tc.asked)
			}
			if !tc.fails && !slices.Equal(vlans, tc.vlans) {
				t.Errorf("vlans = %q, want %q", vlans, tc.vlans)
			}
		})
	}
}

func TestOf(t *testing.T) {
	o := NewOf(testScope, []resource.Kind{resource.KindVLAN})
	if o.Tally == nil || !slices.Equal(o.Want(), []resource.Kind{resource.KindVLAN}) || !o.Wants(resource.KindVLAN) || o.Wants(resource.KindPrefix) {
		t.Errorf("NewOf = %+v", o)
	}
}

func TestLearnt(t *testing.T) {
	var l Learnt[int]
	k := resource.Key{Kind: resource.KindVLAN, Name: "g/1"}
	if _, ok := l.ID(k); ok {
		t.Error("the zero Learnt knows an id")
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			key := resource.Key{Kind: resource.KindVLAN, Name: fmt.Sprint("g/", i)}
			l.Learn(key, i)
			if id, ok := l.ID(key); !ok || id != i {
				t.Errorf("ID(%s) = %d, %v; want %d", key, id, ok, i)
			}
		})
	}
	wg.Wait()
	l.Learn(k, 7)
	l.Learn(k, 8)
	if id, ok := l.ID(k); id != 8 || !ok {
		t.Errorf("ID after a second Learn = %d, %v; want 8", id, ok)
	}
	l.Forget(k)
	l.Forget(resource.Key{Kind: resource.KindPrefix, Name: "never"})
	if _, ok := l.ID(k); ok {
		t.Error("ID after Forget is known")
	}
}
