package neutron

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/ipsync/ipsync/internal/parallel"
)

// Reader reads one Neutron. It is safe for concurrent use.
type Reader struct {
	client   *gophercloud.ServiceClient
	cfg      Config
	logger   *slog.Logger
	reqs     *counter
	progress Progress
}

// Progress learns how many records each collection's read has got so far
// ("read neutron ports"), for a display; Neutron gives no totals.
type Progress interface {
	Add(label string, n int)
}

type noProgress struct{}

func (noProgress) Add(string, int) {}

// ReaderOption changes how NewReader builds a Reader.
type ReaderOption func(*Reader)

// WithProgress reports the progress of reads to p.
func WithProgress(p Progress) ReaderOption { return func(r *Reader) { r.progress = p } }

// NewReader connects to the Neutron cfg describes. With keystone it logs in
// now, so bad credentials show at start, not at the first read. A nil
// logger discards.
func NewReader(ctx context.Context, cfg Config, logger *slog.Logger, opts ...ReaderOption) (*Reader, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	reqs := &counter{}
	client, err := newClient(ctx, cfg, reqs)
	if err != nil {
		return nil, err
	}
	r := &Reader{client: client, cfg: cfg, logger: logger.With("component", "neutron", "endpoint", client.Endpoint), reqs: reqs, progress: noProgress{}}
	for _, o := range opts {
		o(r)
	}
	return r, nil
}

// Requests is how many HTTP requests the reader has made so far.
func (r *Reader) Requests() int64 { return r.reqs.n.Load() }

// Extension aliases that decide what can be read.
const (
	extSegments      = "segment"
	extSegmentRanges = "network-segment-range"
)

// Read reads every network, segment, subnet, port and segment range. Any
// failed page fails the whole read. Kinds are read at the same time, so a
// record created or deleted meanwhile may be missing its parent; Map
// reports such records as skipped.
func (r *Reader) Read(ctx context.Context) (*Snapshot, error) {
	start, reqs := time.Now(), r.Requests()
	ext, err := r.extensions(ctx)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{}
	// Ports first: they are the most pages.
	jobs := []func(context.Context) error{
		func(ctx context.Context) (err error) { s.Ports, err = r.ports(ctx, nil); return err },
		func(ctx context.Context) (err error) { s.Networks, err = r.networks(ctx, nil); return err },
		func(ctx context.Context) (err error) { s.Subnets, err = r.subnets(ctx, nil); return err },
	}
	if ext[extSegments] {
		jobs = append(jobs, func(ctx context.Context) (err error) { s.Segments, err = r.segments(ctx, nil); return err })
	}
	if ext[extSegmentRanges] {
		jobs = append(jobs, func(ctx context.Context) (err error) { s.Ranges, err = r.ranges(ctx); return err })
	}
	if err := parallel.Run(ctx, r.cfg.Concurrency, jobs); err != nil {
		return nil, fmt.Errorf("read neutron %s: %w", r.client.Endpoint, err)
	}
	r.logger.Debug("read neutron", "networks", len(s.Networks), "segments", len(s.Segments),
		"subnets", len(s.Subnets), "ports", len(s.Ports), "ranges", len(s.Ranges),
		"requests", r.Requests()-reqs, "duration", time.Since(start))
	return s, nil
}

// idsPerRequest keeps filter URLs short (a UUID is 36 characters).
const idsPerRequest = 40

// ReadNetworks reads only the networks with the given ids, and their
// segments, subnets and ports; segment ranges are not read. A network
// missing from the result no longer exists.
func (r *Reader) ReadNetworks(ctx context.Context, ids []string) (*Snapshot, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	if len(ids) > 0 && ids[0] == "" {
		ids = ids[1:]
	}
	s := &Snapshot{}
	if len(ids) == 0 {
		return s, nil
	}
	ext, err := r.extensions(ctx)
	if err != nil {
		return nil, err
	}
	var (
		mu   sync.Mutex
		jobs []func(context.Context) error
	)
	for chunk := range slices.Chunk(ids, idsPerRequest) {
		byID := url.Values{"id": chunk}
		byNetwork := url.Values{"network_id": chunk}
		jobs = append(jobs,
			func(ctx context.Context) error {
				got, err := r.networks(ctx, byID)
				mu.Lock()
				s.Networks = append(s.Networks, got...)
				mu.Unlock()
				return err
			},
			func(ctx context.Context) error {
				got, err := r.subnets(ctx, byNetwork)
				mu.Lock()
				s.Subnets = append(s.Subnets, got...)
				mu.Unlock()
				return err
			},
			func(ctx context.Context) error {
				got, err := r.ports(ctx, byNetwork)
				mu.Lock()
				s.Ports = append(s.Ports, got...)
				mu.Unlock()
				return err
			})
		if ext[extSegments] {
			jobs = append(jobs, func(ctx context.Context) error {
				got, err := r.segments(ctx, byNetwork)
				mu.Lock()
				s.Segments = append(s.Segments, got...)
				mu.Unlock()
				return err
			})
		}
	}
	if err := parallel.Run(ctx, r.cfg.Concurrency, jobs); err != nil {
		return nil, fmt.Errorf("read %d neutron networks: %w", len(ids), err)
	}
	// Chunks finish in any order; a read in id order, like Read, is easier
	// to compare.
	slices.SortFunc(s.Networks, func(a, b Network) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(s.Segments, func(a, b Segment) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(s.Subnets, func(a, b Subnet) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(s.Ports, func(a, b Port) int { return strings.Compare(a.ID, b.ID) })
	return s, nil
}

// extensions returns the aliases of the extensions Neutron has loaded.
func (r *Reader) extensions(ctx context.Context) (map[string]bool, error) {
	var body struct {
		Extensions []struct {
			Alias string `json:"alias"`
		} `json:"extensions"`
	}
	_, err := r.client.Get(ctx, r.client.ServiceURL("extensions"), &body, &gophercloud.RequestOpts{OkCodes: []int{200}})
	if err != nil {
		return nil, fmt.Errorf("list neutron extensions at %s: %w", r.client.Endpoint, err)
	}
	ext := make(map[string]bool, len(body.Extensions))
	for _, e := range body.Extensions {
		ext[e.Alias] = true
	}
	return ext, nil
}

func (r *Reader) networks(ctx context.Context, filter url.Values) ([]Network, error) {
	return list(ctx, r, "networks", filter, networkFields, wireNetwork.network)
}

func (r *Reader) subnets(ctx context.Context, filter url.Values) ([]Subnet, error) {
	return list(ctx, r, "subnets", filter, subnetFields, wireSubnet.subnet)
}

func (r *Reader) ports(ctx context.Context, filter url.Values) ([]Port, error) {
	return list(ctx, r, "ports", filter, portFields, wirePort.port)
}

func (r *Reader) segments(ctx context.Context, filter url.Values) ([]Segment, error) {
	return list(ctx, r, "segments", filter, nil, wireSegment.segment)
}

func (r *Reader) ranges(ctx context.Context) ([]SegmentRange, error) {
	return list(ctx, r, rangesPath, nil, rangeFields, wireRange.segmentRange)
}

// list pages through a collection and converts its wire records.
func list[W record, T any](ctx context.Context, r *Reader, collection string, filter url.Values, fields []string, conv func(W) T) ([]T, error) {
	q := url.Values{}
	for k, v := range filter {
		q[k] = v
	}
	if len(fields) > 0 {
		q["fields"] = fields
	}
	label := "read neutron " + collection
	ws, err := listAll[W](ctx, r.client, collection, q, r.cfg.PageSize, func(n int) { r.progress.Add(label, n) })
	if err != nil {
		return nil, err
	}
	out := make([]T, len(ws))
	for i, w := range ws {
		out[i] = conv(w)
	}
	return out, nil
}
