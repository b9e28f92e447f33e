package agent

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/rangehealth"
)

// Registry is where the agent registers its metrics and what /metrics
// serves, so collectors others add to it (API request counters) show too.
// *prometheus.Registry is one.
type Registry interface {
	prometheus.Registerer
	prometheus.Gatherer
}

// Run results, the result label of ipsync_runs_total.
const (
	resultOK          = "ok"
	resultError       = "error"
	resultUnreachable = "unreachable"
	resultCanceled    = "canceled"
)

type metrics struct {
	site     string
	runs     *prometheus.CounterVec
	duration prometheus.Observer
	objects  *prometheus.GaugeVec
	refusals prometheus.Gauge
	writes   prometheus.Counter
	// neutronWrites counts the other direction: the static spec's
	// objects written to the site's Neutron.
	neutronWrites prometheus.Counter
	drift         *prometheus.GaugeVec
	lastSuccess   prometheus.Gauge
	softErrors    prometheus.Gauge
	noOps         prometheus.Counter
	lag           prometheus.Observer
	condition     *prometheus.GaugeVec
	leaseHeld     prometheus.Gauge
	syncs         *prometheus.HistogramVec
	requests      *prometheus.HistogramVec
	objectsRead   *prometheus.HistogramVec
	misses        *prometheus.CounterVec
	rangeRatio    *prometheus.GaugeVec
	rangeIDs      *prometheus.GaugeVec
	rangeFull     *prometheus.GaugeVec
}

func newMetrics(reg prometheus.Registerer, site string) *metrics {
	f := promauto.With(reg)
	m := &metrics{
		site: site,
		runs: f.NewCounterVec(prometheus.CounterOpts{
			Name: "ipsync_runs_total", Help: "Syncs run, by result.",
		}, []string{"site", "result"}),
		duration: f.NewHistogramVec(prometheus.HistogramOpts{
			Name: "ipsync_run_duration_seconds", Help: "How long a sync took.",
			Buckets: prometheus.ExponentialBuckets(0.25, 2, 14),
		}, []string{"site"}).WithLabelValues(site),
		objects: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ipsync_objects", Help: "Objects per kind and action in the last full sync's plan.",
		}, []string{"site", "kind", "action"}),
		refusals: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ipsync_plan_refusals", Help: "Reasons the last full sync's plan was refused before any write (conflicts, the mass-delete guard, references that do not resolve); 0 when nothing stopped it.",
		}, []string{"site"}).WithLabelValues(site),
		writes: f.NewCounterVec(prometheus.CounterOpts{
			Name: "ipsync_writes_total", Help: "Objects written to the target.",
		}, []string{"site"}).WithLabelValues(site),
		neutronWrites: f.NewCounterVec(prometheus.CounterOpts{
			Name: "ipsync_neutron_writes_total", Help: "Objects of the static spec (segment ranges, subnet pools, address scopes) written to the site's Neutron.",
		}, []string{"site"}).WithLabelValues(site),
		drift: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ipsync_drift_objects", Help: "Drifting objects and leaks found by the last full sync, by kind and drift.",
		}, []string{"site", "kind", "drift"}),
		lastSuccess: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ipsync_last_sync_timestamp_seconds", Help: "When the last successful sync ended, in Unix seconds.",
		}, []string{"site"}).WithLabelValues(site),
		softErrors: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ipsync_consecutive_soft_errors", Help: "Syncs that failed in a row since the last success (each retried with backoff); 0 after a success.",
		}, []string{"site"}).WithLabelValues(site),
		noOps: f.NewCounterVec(prometheus.CounterOpts{
			Name: "ipsync_no_op_runs_total", Help: "Successful syncs that found nothing to write.",
		}, []string{"site"}).WithLabelValues(site),
		lag: f.NewHistogramVec(prometheus.HistogramOpts{
			Name: "ipsync_event_lag_seconds", Help: "Time from the oldest Neutron event of a trigger to the end of the sync that handled it.",
			Buckets: prometheus.ExponentialBuckets(0.1, 2, 14),
		}, []string{"site"}).WithLabelValues(site),
		condition: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ipsync_condition", Help: "1 when the condition holds (a side is reachable, the lease is held), 0 when it fails.",
		}, []string{"site", "condition"}),
		leaseHeld: f.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ipsync_lease_held", Help: "1 while this agent holds the site's write lease.",
		}, []string{"site"}).WithLabelValues(site),
		syncs: f.NewHistogramVec(prometheus.HistogramOpts{
			Name: "ipsync_sync_duration_seconds", Help: "How long a successful sync took, by trigger: sweep (both sides read whole), full (the whole site planned on what changed) or events.",
			Buckets: prometheus.ExponentialBuckets(0.05, 2, 16),
		}, []string{"site", "trigger"}),
		requests: f.NewHistogramVec(prometheus.HistogramOpts{
			Name: "ipsync_sync_requests", Help: "Requests one successful sync sent to a side, by how the side was read: whole or changes.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 14),
		}, []string{"site", "side", "read"}),
		objectsRead: f.NewHistogramVec(prometheus.HistogramOpts{
			Name: "ipsync_sync_objects_read", Help: "Objects one successful sync read from a side, by how the side was read: whole or changes.",
			Buckets: prometheus.ExponentialBuckets(1, 4, 11),
		}, []string{"site", "side", "read"}),
		misses: f.NewCounterVec(prometheus.CounterOpts{
			Name: "ipsync_incremental_misses_total", Help: "Objects a sweep, or the check of a followed view, found different from what reading by changes had kept, by side; each is logged.",
		}, []string{"site", "side"}),
	}
	rangeLabels := []string{"site", "kind", "range"}
	m.rangeRatio = f.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ipsync_range_used_ratio", Help: "Share of a range's ids taken (0-1), as the last sync of the whole site counted: Neutron's segment ranges (kind: network type) and the target's VLAN groups (kind vlan_group).",
	}, rangeLabels)
	m.rangeIDs = f.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ipsync_range_ids", Help: "A range's ids, by state: used or free.",
	}, append(rangeLabels, "state"))
	m.rangeFull = f.NewGaugeVec(prometheus.GaugeOpts{
		Name: "ipsync_range_full_seconds", Help: "Forecast: seconds until a range is full at the rate its used count rose over the agent's history (up to a week); 0 when full; absent while it is not filling or the history spans less than an hour.",
	}, rangeLabels)
	// Series that exist from the start, so rate() and absent() work before
	// the first failure.
	for _, r := range []string{resultOK, resultError, resultUnreachable, resultCanceled} {
		m.runs.WithLabelValues(site, r)
	}
	for _, side := range []string{"neutron", "target"} {
		m.misses.WithLabelValues(site, side)
	}
	return m
}

// sync records a successful sync's reads.
func (m *metrics) sync(trigger string, d time.Duration, out Outcome) {
	m.syncs.WithLabelValues(m.site, trigger).Observe(d.Seconds())
	for side, n := range out.Reads {
		read := "changes"
		if out.Whole[side] {
			read = "whole"
		}
		m.requests.WithLabelValues(m.site, side, read).Observe(float64(n))
		m.objectsRead.WithLabelValues(m.site, side, read).Observe(float64(out.Objects[side]))
	}
	for side, ms := range out.Misses {
		m.misses.WithLabelValues(m.site, side).Add(float64(len(ms)))
	}
}

func (m *metrics) run(result string, d time.Duration) {
	m.runs.WithLabelValues(m.site, result).Inc()
	m.duration.Observe(d.Seconds())
}

func (m *metrics) setCondition(name string, ok bool) {
	v := 0.0
	if ok {
		v = 1
	}
	m.condition.WithLabelValues(m.site, name).Set(v)
}

func (m *metrics) setLease(held bool) {
	v := 0.0
	if held {
		v = 1
	}
	m.leaseHeld.Set(v)
}

// setPlan replaces the objects gauge with the plans' summaries (the sync's
// plan against the target and, for a site that takes them, the spec's
// against its Neutron: their kinds differ); kind/action pairs gone from
// the plans drop out instead of keeping old counts.
func (m *metrics) setPlan(plans ...*plan.Plan) {
	refusals := 0
	m.objects.DeletePartialMatch(prometheus.Labels{"site": m.site})
	for _, p := range plans {
		refusals += len(p.Refusals)
		for _, r := range p.Summary.Rows() {
			for action, n := range map[string]int{
				"create": r.Create, "update": r.Update, "adopt": r.Adopt, "delete": r.Delete,
				"conflict": r.Conflict, "noop": r.Noop, "skip": r.Skip,
			} {
				m.objects.WithLabelValues(m.site, string(r.Kind), action).Add(float64(n))
			}
		}
	}
	m.refusals.Set(float64(refusals))
}

// setDrift replaces the drift gauge with the owners' items; leaks count
// under drift "leak" with their own kind names.
func (m *metrics) setDrift(owners ...drift.Owner) {
	m.drift.DeletePartialMatch(prometheus.Labels{"site": m.site})
	for _, o := range owners {
		for kind, byDrift := range o.ByKind() {
			for d, n := range byDrift {
				m.drift.WithLabelValues(m.site, string(kind), d).Add(float64(n))
			}
		}
		for _, l := range o.Leaks {
			m.drift.WithLabelValues(m.site, l.Kind, "leak").Inc()
		}
	}
}

// setRanges replaces the range gauges with hs: a range gone from Neutron
// or the target drops out, and so does a forecast that no longer holds.
func (m *metrics) setRanges(hs []rangehealth.Health) {
	site := prometheus.Labels{"site": m.site}
	m.rangeRatio.DeletePartialMatch(site)
	m.rangeIDs.DeletePartialMatch(site)
	m.rangeFull.DeletePartialMatch(site)
	for _, h := range hs {
		m.rangeRatio.WithLabelValues(m.site, h.Kind, h.Range).Set(h.UsedRatio)
		m.rangeIDs.WithLabelValues(m.site, h.Kind, h.Range, "used").Set(float64(h.Used))
		m.rangeIDs.WithLabelValues(m.site, h.Kind, h.Range, "free").Set(float64(h.Free))
		if h.Filling {
			m.rangeFull.WithLabelValues(m.site, h.Kind, h.Range).Set(h.FullInSeconds)
		}
	}
}
