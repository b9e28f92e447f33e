// Package decodetest holds a Decoder to what encoding/json does, for the
// tests of each server's wire types: pages must decode as they did
// before, only faster.
package decodetest

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// Both decodes in with encoding/json and with d into fresh values of T,
// reports where they differ, and returns d's.
func Both[T any](t testing.TB, d *httpapi.Decoder, name, in string) T {
	t.Helper()
	var old, got T
	oldErr := json.Unmarshal([]byte(in), &old)
	err := d.Decode([]byte(in), &got)
	if (err != nil) != (oldErr != nil) {
		t.Fatalf("%s: the decoder's error = %v, encoding/json error = %v", name, err, oldErr)
	}
	if oldErr == nil && !reflect.DeepEqual(got, old) {
		t.Errorf("%s: the decoder gives %+v, want encoding/json's %+v", name, got, old)
	}
	return got
}
