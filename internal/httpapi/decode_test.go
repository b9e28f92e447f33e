package httpapi

import (
	"encoding/json"
	"reflect"
	"testing"
	"unsafe"
)

type testRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type testObject struct {
	ID           string                     `json:"id"`
	Count        json.Number                `json:"count"`
	Status       *testRef                   `json:"status"`
	Tags         []testRef                  `json:"tags"`
	CustomFields map[string]json.RawMessage `json:"custom_fields"`
}

// TestDecoderLikeEncodingJSON decodes into fresh and into filled values,
// with encoding/json and with a Decoder that shares testRef.
func TestDecoderLikeEncodingJSON(t *testing.T) {
	d := NewDecoder(Share[testRef]())
	filled := func() testObject {
		return testObject{ID: "old", Status: &testRef{ID: "s0", Name: "kept"}, Tags: []testRef{{ID: "t0", Name: "kept"}},
			CustomFields: map[string]json.RawMessage{"kept": json.RawMessage(`1`)}}
	}
	for _, tc := range []struct {
		name, in string
		into     func() testObject
	}{
		{"fresh", `{"id":"a","count":12,"status":{"id":"s"},"tags":[{"id":"t"},{"id":"t"}],"custom_fields":{"o":"x","n":null}}`, func() testObject { return testObject{} }},
		{"filled", `{"id":"a","status":{"id":"s"},"tags":[{"id":"t"}],"custom_fields":{"o":"x"}}`, filled},
		{"nulls into filled", `{"id":null,"count":null,"status":null,"tags":null,"custom_fields":null}`, filled},
		{"number as a string", `{"count":"-1.5e3"}`, func() testObject { return testObject{} }},
		{"not a number in a string", `{"count":"12a"}`, func() testObject { return testObject{} }},
		{"empty number string", `{"count":""}`, func() testObject { return testObject{} }},
		{"bool for a number", `{"count":true}`, func() testObject { return testObject{} }},
		{"number for a reference", `{"status":5}`, func() testObject { return testObject{} }},
		{"string for a string", `{"id":"\u00e9\n"}`, func() testObject { return testObject{} }},
		{"bool for a string", `{"id":true}`, func() testObject { return testObject{} }},
	} {
		old, got := tc.into(), tc.into()
		oldErr := json.Unmarshal([]byte(tc.in), &old)
		err := d.Decode([]byte(tc.in), &got)
		if (err != nil) != (oldErr != nil) {
			t.Errorf("%s: Decode error = %v, encoding/json error = %v", tc.name, err, oldErr)
			continue
		}
		if oldErr == nil && !reflect.DeepEqual(got, old) {
			t.Errorf("%s: Decode = %+v, want encoding/json's %+v", tc.name, got, old)
		}
	}
}

type plainObject struct {
	Name   string            `json:"name"`
	VID    uint16            `json:"vid"`
	Ranges [][2]int          `json:"ranges"`
	Labels map[string]string `json:"labels"`
	Extra  any               `json:"extra"`
	Next   *plainObject      `json:"next"`
}

// TestDecoderPlainLikeEncodingJSON: a type with nothing to share decodes
// on v2's own; the rules are the same.
func TestDecoderPlainLikeEncodingJSON(t *testing.T) {
	d := NewDecoder(Share[testRef]())
	if !d.isPlain(reflect.TypeFor[*[]plainObject]()) || d.isPlain(reflect.TypeFor[*[]testObject]()) {
		t.Fatalf("plainObject not plain, or testObject plain")
	}
	for _, in := range []string{
		`[{"NAME":"a","vid":4094,"ranges":[[1,2],[3]],"labels":{"k":"v","k":"w"},"extra":{"n":1.5,"l":[true,null,"s"]},"next":{"name":"b","next":null}}]`,
		"[{\"name\":\"bad \xff\",\"name\":\"twice\"}]",
		`[{"vid":70000}]`, `[{"ranges":[[1,2,3]]}]`, `[{"name":1}]`, `[{"labels":null,"extra":null}]`, `[`,
	} {
		var old, got []plainObject
		oldErr := json.Unmarshal([]byte(in), &old)
		err := d.Decode([]byte(in), &got)
		if (err != nil) != (oldErr != nil) {
			t.Errorf("%s: Decode error = %v, encoding/json error = %v", in, err, oldErr)
		} else if oldErr == nil && !reflect.DeepEqual(got, old) {
			t.Errorf("%s: Decode = %+v, want encoding/json's %+v", in, got, old)
		}
	}
}

// TestDecoderShares: what repeats is decoded once.
func TestDecoderShares(t *testing.T) {
	d := NewDecoder(Share[testRef]())
	in := []byte(`[{"id":"object-1","status":{"id":"status-1"},"custom_fields":{"owner":"site-a"}},` +
		`{"id":"object-2","status":{"id":"status-1"},"custom_fields":{"owner":"site-a"}}]`)
	var a []testObject
	if err := d.Decode(in, &a); err != nil {
		t.Fatal(err)
	}
	if a[0].Status != a[1].Status || a[0].Status.ID != "status-1" {
		t.Errorf("statuses %p and %p: want one pointer", a[0].Status, a[1].Status)
	}
	if reflect.ValueOf(a[0].CustomFields).Pointer() != reflect.ValueOf(a[1].CustomFields).Pointer() {
		t.Errorf("custom fields: want one map")
	}
	if id0, id1 := a[0].CustomFields["owner"], a[1].CustomFields["owner"]; string(id0) != `"site-a"` || &id0[0] != &id1[0] {
		t.Errorf("owners %s and %s: want one value", id0, id1)
	}
	in = []byte(`[{"id":"status-1"},{"id":"status-1","name":"x"}]`)
	var refs []testRef
	if err := d.Decode(in, &refs); err != nil {
		t.Fatal(err)
	}
	if unsafe.StringData(refs[0].ID) != unsafe.StringData(a[1].Status.ID) {
		t.Errorf("status ids: want one string")
	}
}
