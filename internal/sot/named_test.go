package sot

import (
	"maps"
	"testing"

	"github.com/ipsync/ipsync/internal/resource"
)

type wireGroup struct {
	id, name string
}

func (w *wireGroup) NameOf() (string, string) { return w.id, w.name }

type wireVLANOf struct {
	id, group string
	vid       uint16
}

func (w *wireVLANOf) VLANOf() (string, string, uint16) { return w.id, w.group, w.vid }

// TestLearnNamesAndVLANKeys: a read's names are its wire objects' by id,
// each learnt under its kind for the writes that name it, and a VLAN's
// key is its group's name and its VID.
func TestLearnNamesAndVLANKeys(t *testing.T) {
	learnt := map[resource.Key]string{}
	groups := LearnNames[string]([]wireGroup{{"g1", "leafs"}, {"g2", "spines"}}, resource.KindVLANGroup,
		func(k resource.Key, id string) { learnt[k] = id })
	if want := map[string]string{"g1": "leafs", "g2": "spines"}; !maps.Equal(groups, want) {
		t.Errorf("names = %v, want %v", groups, want)
	}
	if want := map[resource.Key]string{{Kind: resource.KindVLANGroup, Name: "leafs"}: "g1", {Kind: resource.KindVLANGroup, Name: "spines"}: "g2"}; !maps.Equal(learnt, want) {
		t.Errorf("learnt = %v, want %v", learnt, want)
	}
	keys := VLANKeys[string]([]wireVLANOf{{"v1", "g1", 100}, {"v2", "g9", 7}}, groups)
	if want := map[string]string{"v1": resource.VLANKey("leafs", 100), "v2": resource.VLANKey("", 7)}; !maps.Equal(keys, want) {
		t.Errorf("keys = %v, want %v", keys, want)
	}
}
