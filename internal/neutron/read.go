package neutron

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
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
	extAgents        = "agent"
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
	s := &Snapshot{ReadAt: start.UTC()}
	var agents map[string][]string
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
		jobs = append(jobs, func(ctx context.Context) (err error) {
			if s.Ranges, err = r.ranges(ctx); err != nil {
				return err
			}
			return r.allocations(ctx, s.Ranges)
		})
	}
	if ext[extAgents] {
		jobs = append(jobs, func(ctx context.Context) (err error) { agents, err = r.agents(ctx); return err })
	}
	if err := parallel.Run(ctx, r.cfg.Concurrency, jobs); err != nil {
		return nil, fmt.Errorf("read neutron %s: %w", r.client.Endpoint, err)
	}
	bindPhysnets(s.Ports, agents)
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
	s := &Snapshot{ReadAt: time.Now().UTC()}
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
	// The agents only when a bound port's profile does not name its
	// physical network: one request, and none for most narrowed reads.
	if ext[extAgents] && slices.ContainsFunc(s.Ports, needsAgent) {
		agents, err := r.agents(ctx)
		if err != nil {
			return nil, fmt.Errorf("read %d neutron networks: %w", len(ids), err)
		}
		bindPhysnets(s.Ports, agents)
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

// agents maps each host to the physical networks its agents map. A
// Neutron that does not show a reader its agents (they are admin-only by
// default) gives none: the leak rule then falls back to the port's
// subnets.
func (r *Reader) agents(ctx context.Context) (map[string][]string, error) {
	ws, err := list(ctx, r, "agents", nil, agentFields, wireAgent.agent)
	if gophercloud.ResponseCodeIs(err, http.StatusForbidden) || gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
		r.logger.Debug("neutron agents not readable; the physical networks of bound ports come from their profiles only", "err", err)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, w := range ws {
		out[w.Host] = append(out[w.Host], w.Configurations...)
	}
	for h, nets := range out {
		slices.Sort(nets)
		out[h] = slices.Compact(nets)
	}
	return out, nil
}

// needsAgent: a bound port on a host whose physical networks only the
// host's agents can tell.
func needsAgent(p Port) bool { return bound(p.VIFType) && p.HostID != "" && len(p.Physnets) == 0 }

// bindPhysnets gives each bound port without physical networks of its own
// those of its host's agents.
func bindPhysnets(ports []Port, agents map[string][]string) {
	for i := range ports {
		if needsAgent(ports[i]) {
			ports[i].Physnets = agents[ports[i].HostID]
		}
	}
}

// maxAllocationScan bounds the ranges whose allocations are read: a range
// lists each of its free ids, and a VNI range may have millions.
const maxAllocationScan = 1 << 16

// allocations fills in the ids each range holds allocated that no segment
// holds. Neutron computes a range's free ids and its segments' ids in two
// queries, so an allocation made between them looks unheld for a moment:
// a range that shows some is read again, and only the ids unheld both
// times count.
func (r *Reader) allocations(ctx context.Context, ranges []SegmentRange) error {
	var jobs []func(context.Context) error
	for i := range ranges {
		rg := &ranges[i]
		if rg.Maximum < rg.Minimum || rg.Maximum-rg.Minimum >= maxAllocationScan {
			continue
		}
		jobs = append(jobs, func(ctx context.Context) error {
			first, err := r.unheld(ctx, rg)
			var again []int
			if err == nil && len(first) > 0 {
				again, err = r.unheld(ctx, rg)
			}
			if err != nil {
				// A report, not the sync: the range's leaks go unreported
				// this time.
				r.logger.Warn("read the allocations of a neutron segment range", "range", rg.ID, "err", err)
				return nil
			}
			rg.Unheld = slices.DeleteFunc(first, func(id int) bool { _, found := slices.BinarySearch(again, id); return !found })
			return nil
		})
	}
	return parallel.Run(ctx, r.cfg.Concurrency, jobs)
}

// unheld reads one range's allocations: its ids neither free nor held by a
// segment, sorted; empty, not nil, when there are none.
func (r *Reader) unheld(ctx context.Context, rg *SegmentRange) ([]int, error) {
	var body struct {
		Range wireAllocation `json:"network_segment_range"`
	}
	u := r.client.ServiceURL(rangesPath, rg.ID) + "?" + url.Values{"fields": {"available", "used"}}.Encode()
	if _, err := r.client.Get(ctx, u, &body, &gophercloud.RequestOpts{OkCodes: []int{200}}); err != nil {
		return nil, fmt.Errorf("read the allocations of segment range %s: %w", rg.ID, err)
	}
	taken := make(map[int]bool, len(body.Range.Available)+len(body.Range.Used))
	for _, id := range body.Range.Available {
		taken[id] = true
	}
	for id := range body.Range.Used {
		if n, err := strconv.Atoi(id); err == nil {
			taken[n] = true
		}
	}
	out := []int{}
	for id := rg.Minimum; id <= rg.Maximum; id++ {
		if !taken[id] {
			out = append(out, id)
		}
	}
	return out, nil
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
