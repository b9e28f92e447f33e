package netbox

import (
	"github.com/ipsync/ipsync/internal/bulkwrite"
)

// ApplyResult is what an Apply did.
type ApplyResult = bulkwrite.Result

// ObjectError is one change that was not written, with why.
type ObjectError = bulkwrite.ObjectError

// bulkErrors is NetBox's answer to a refused bulk write (4.7): the
// objects at fault, by their index in the request (creates, and entries
// that name no object) or by id (updates and deletes).
type bulkErrors struct {
	Detail string `json:"detail"`
	Errors []struct {
		Index  *int           `json:"index"`
		ID     *int           `json:"id"`
		Errors map[string]any `json:"errors"`
	} `json:"errors"`
}
