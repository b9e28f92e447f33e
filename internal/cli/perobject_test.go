package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/ipsync/ipsync/internal/netbox"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
)

// TestPerObjectFailure: a saved plan applied object by object is a refusal
// (exit 3, "applied in part") only when every change the target refused
// is one whose object changed since the plan; anything else is a failure.
func TestPerObjectFailure(t *testing.T) {
	vlan := func(name string) resource.Key { return resource.Key{Kind: resource.KindVLAN, Name: name} }
	refused := func(keys ...resource.Key) error {
		var errs []error
		for _, k := range keys {
			errs = append(errs, &netbox.ObjectError{Key: k, Action: plan.Update, Message: "changed in netbox since the plan was made"})
		}
		return fmt.Errorf("netbox refused %d change(s): %w", len(keys), errors.Join(errs...))
	}
	changed := []resource.Key{vlan("g/100"), vlan("g/101")}
	tests := []struct {
		name     string
		err      error
		wantCode int
		wantErr  string // a fragment of the message
	}{
		{"one changed object refused", refused(vlan("g/100")), ExitRefused,
			"applied in part: 3 objects written to http://netbox; 1 change refused because its object changed in NetBox since the plan was made"},
		{"both changed objects refused", refused(vlan("g/100"), vlan("g/101")), ExitRefused, "2 changes refused because their objects changed"},
		{"an object refused that had not changed", refused(vlan("g/100"), vlan("g/102")), ExitError, "3 objects written; run plan to see what is left"},
		{"the server unreachable", fmt.Errorf("apply: %w", io.ErrUnexpectedEOF), ExitError, "unexpected EOF (3 objects written"},
		{"a prefix on a changed VLAN not sent", errors.Join(refused(vlan("g/100")), &netbox.ObjectError{Key: resource.Key{Kind: resource.KindPrefix, Name: "n/10.0.0.0/24"},
			Action: plan.Update, Message: "not written: it refers to vlan g/100, which was not written", After: vlan("g/100")}), ExitRefused,
			"1 change refused because its object changed in NetBox since the plan was made, and left as it is there, and 1 change not sent because it needs one of them"},
		{"a prefix not sent after a refusal that is no staleness", errors.Join(refused(vlan("g/100"), vlan("g/102")), &netbox.ObjectError{Key: resource.Key{Kind: resource.KindPrefix, Name: "n/10.0.0.0/24"},
			Action: plan.Update, Message: "not written: it refers to vlan g/102, which was not written", After: vlan("g/102")}), ExitError, "run plan to see what is left"},
		{"a refusal beside another failure", errors.Join(refused(vlan("g/100")), io.ErrUnexpectedEOF), ExitError, "3 objects written; run plan"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			e := &env{stderr: &stderr}
			j := &job{targetID: "http://netbox", server: "NetBox", refused: refusedByNetBox}
			err := e.perObjectFailure(tt.err, 3, j, &reconcile.Result{Changed: changed})
			code := ExitError
			if ee, ok := errors.AsType[*exitError](err); ok {
				code = ee.code
			}
			msg := stderr.String()
			if !errors.Is(err, errReported) {
				msg += err.Error()
			}
			if code != tt.wantCode || !strings.Contains(msg, tt.wantErr) {
				t.Errorf("perObjectFailure = exit %d, %q; want exit %d with %q", code, msg, tt.wantCode, tt.wantErr)
			}
		})
	}
}
