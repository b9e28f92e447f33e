package cli

import (
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// newRegistry is the daemons' metrics registry: the Go runtime's and the
// process's collectors, and ipsync_build_info, by which a dashboard tells
// which build each pod runs during a rollout.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "ipsync_build_info",
		Help:        "Always 1; the labels name the running build: version, commit and Go version.",
		ConstLabels: prometheus.Labels{"version": Version, "commit": commit(Commit, buildInfo()), "goversion": runtime.Version()},
	})
	build.Set(1)
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), build)
	return reg
}

// buildInfo is the binary's, nil where it has none.
func buildInfo() *debug.BuildInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return info
}
