package bulkwrite

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/ipsync/ipsync/internal/httpapi"
)

// Bulk is one bulk request of a batch's items, whose answer lists the
// objects written (W), in the items' order.
type Bulk[B, W any] struct {
	// Pending are the items the request sends; after a retry, those the
	// lost attempt had not written.
	Pending []Item[B]
	// Existed are the items a lost attempt was found to have written.
	Existed []Item[B]
	// Answer is what the server answered of a create or update.
	Answer []W
}

// Request is the request of b at path. Retried after an attempt whose
// answer was lost, a create first asks written which of the items the
// lost attempt wrote, and sends only the rest (none: the request is
// skipped, httpapi.ErrSkipped). sending, if set, is told of each attempt.
// A 500 is answered rather than retried (the caller splits the batch),
// but a single item's is retried retries500 times, since it may be
// transient.
func (b *Bulk[B, W]) Request(method, path string, t *httpapi.Tally, retries500 int,
	written func(ctx context.Context, pending []Item[B]) (done, rest []Item[B], err error), sending func()) httpapi.Request {
	r := httpapi.Request{Method: method, Path: path, Tally: t, Answer500: true,
		Decode: func(raw []byte) error {
			if method == http.MethodDelete {
				return nil
			}
			b.Answer = nil
			return json.Unmarshal(raw, &b.Answer)
		},
		Body: func(ctx context.Context, _ int, maybeSent bool) ([]byte, bool, error) {
			if method == http.MethodPost && maybeSent {
				done, rest, err := written(ctx, b.Pending)
				if err != nil {
					return nil, false, err
				}
				b.Existed, b.Pending = append(b.Existed, done...), rest
				if len(b.Pending) == 0 {
					return nil, true, nil
				}
			}
			if sending != nil {
				sending()
			}
			bodies := make([]B, len(b.Pending))
			for i, it := range b.Pending {
				bodies[i] = it.Body
			}
			raw, err := json.Marshal(bodies)
			return raw, false, err
		}}
	if len(b.Pending) == 1 {
		r.Retries500 = retries500
	}
	return r
}

// Found reports what a lost attempt was found to have written as done.
func (b *Bulk[B, W]) Found(rep *Report[B], log *slog.Logger, path string) {
	if len(b.Existed) > 0 {
		log.Info("retried create found objects already written", "path", path, "objects", len(b.Existed))
		rep.Done(b.Existed...)
	}
}
