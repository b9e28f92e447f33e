package agent

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ipsync/ipsync/internal/drift"
)

//go:embed status.html.tmpl
var statusHTML string

func pageFuncs() template.FuncMap {
	return template.FuncMap{
		"when": func(t time.Time) string {
			if t.IsZero() {
				return "-"
			}
			return t.Format("2006-01-02 15:04:05 MST")
		},
		"seconds": func(d time.Duration) string { return fmt.Sprintf("%.1fs", d.Seconds()) },
	}
}

// Handler serves /metrics, /healthz (the process runs), /readyz (a sync
// succeeded and no side is unreachable), /status.json and the status page
// at /.
func (a *Agent) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(a.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", a.serveReady)
	mux.HandleFunc("GET /status.json", a.serveJSON)
	mux.HandleFunc("GET /{$}", a.servePage)
	return mux
}

func (a *Agent) serveReady(w http.ResponseWriter, _ *http.Request) {
	st := a.Status()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if !st.Ready {
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "not ready:", st.NotReady)
		return
	}
	fmt.Fprintln(w, "ok")
}

func (a *Agent) serveJSON(w http.ResponseWriter, _ *http.Request) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(a.Status()); err != nil {
		a.log.Error("encode status", "err", err)
		http.Error(w, "encode status: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b.Bytes())
}

// servePage renders the drift report with the agent's own tables above
// it, into a buffer first so a template error is a 500, not half a page.
func (a *Agent) servePage(w http.ResponseWriter, _ *http.Request) {
	st := a.Status()
	var extra bytes.Buffer
	if err := a.page.Execute(&extra, st); err != nil {
		a.log.Error("render status page", "err", err)
		http.Error(w, "render status page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	report := st.Drift
	if report == nil {
		report = &drift.Report{GeneratedAt: a.clock.Now(), Target: st.Target}
	}
	var page bytes.Buffer
	// extra is html/template output, so it is already escaped.
	if err := report.WriteHTML(&page, drift.HTML{Title: "ipsync drift — " + report.Target, Top: template.HTML(extra.String())}); err != nil {
		a.log.Error("render drift report", "err", err)
		http.Error(w, "render drift report: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// As the page's own meta tag: no scripts, nothing fetched.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	_, _ = w.Write(page.Bytes())
}
