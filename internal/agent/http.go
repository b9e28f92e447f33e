package agent

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
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
		"percent": func(f float64) string { return fmt.Sprintf("%.0f%%", f*100) },
	}
}

// Handler serves /metrics, /healthz (the process runs), /readyz (a sync
// succeeded and no side is unreachable), /status.json, the status page at
// / and the pages of the drift it folds at /drift.
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
	mux.HandleFunc("GET /drift", a.serveDriftPage)
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

// pageData is what the status page shows: the status, and how it is
// drawn.
type pageData struct {
	Status
	Now            time.Time
	RefreshSeconds int
	HistoryView    historyView
	Shown          int
	// Filling are the ranges used the threshold or more, from the last
	// sync that counted them, which need not be the one the drift is
	// from: a standby counts too.
	Filling *drift.Ranges
}

// StateClass colours the state's badge.
func (p pageData) StateClass() string {
	switch p.State() {
	case "failing":
		return "bad"
	case "starting", "standby":
		return "unknown"
	case "in agreement":
		return "ok"
	}
	return "warn"
}

// Refresh bounds: the page reloads every refreshMax, sooner when the next
// sync is due sooner (a little after it starts, so that its result has a
// chance to show), never more often than every refreshMin.
const (
	refreshMax   = 30 * time.Second
	refreshMin   = 5 * time.Second
	refreshAfter = 5 * time.Second
)

func refreshEvery(next, now time.Time) time.Duration {
	d := refreshMax
	if !next.IsZero() {
		d = min(d, next.Sub(now)+refreshAfter)
	}
	return max(d, refreshMin).Round(time.Second)
}

// driftLink is the address of page n of a group of the drift, relative so
// that it works wherever the page is served from (a port-forward, a path
// under a proxy).
func driftLink(g drift.Group, page int) string {
	return "drift?" + url.Values{"owner": {g.Owner}, "kind": {g.Kind}, "drift": {g.Drift}, "page": {strconv.Itoa(page)}}.Encode()
}

// title names the daemon, its site and its state, so that a tab among
// many says which agent it is and whether it needs a look.
func title(st Status) string {
	t := fmt.Sprintf("ipsync: %s %s — %s", st.Heading, st.Site, st.State())
	if st.DryRun {
		t += " (dry run)"
	}
	return t
}

// servePage renders the drift report with the agent's own part above it,
// into a buffer first so a template error is a 500, not half a page.
func (a *Agent) servePage(w http.ResponseWriter, _ *http.Request) {
	st := a.Status()
	now := a.clock.Now()
	refresh := refreshEvery(st.NextSync, now)
	data := pageData{Status: st, Now: now, RefreshSeconds: int(refresh / time.Second), HistoryView: newHistoryView(st.History, now, st.DryRun), Shown: drift.Shown,
		Filling: drift.RangesOf(st.Site, st.Ranges, st.RangeThreshold)}
	var top bytes.Buffer
	if err := a.page.Execute(&top, data); err != nil {
		a.log.Error("render status page", "err", err)
		http.Error(w, "render status page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	report := &drift.Report{GeneratedAt: now, Target: st.Target}
	if st.Drift != nil {
		c := *st.Drift
		report = &c
	}
	// The page shows the ranges itself, near the top: a range running out
	// wants a look before the drift does.
	report.Ranges = nil
	var page bytes.Buffer
	// top is html/template output, so it is already escaped.
	h := drift.HTML{Title: title(st), Refresh: refresh, Top: template.HTML(top.String()), Link: driftLink}
	if err := report.WriteHTML(&page, h); err != nil {
		a.log.Error("render drift report", "err", err)
		http.Error(w, "render drift report: "+err.Error(), http.StatusInternalServerError)
		return
	}
	writePage(w, page.Bytes())
}

// serveDriftPage lists one page of one kind and drift of the drift, which
// the status page folds: ?owner=&kind=&drift=&page=. It does not reload
// itself: the rows under an operator's eyes would move.
func (a *Agent) serveDriftPage(w http.ResponseWriter, r *http.Request) {
	st := a.Status()
	q := r.URL.Query()
	g := drift.Group{Owner: q.Get("owner"), Kind: q.Get("kind"), Drift: q.Get("drift")}
	n := 1
	if p := q.Get("page"); p != "" {
		var err error
		if n, err = strconv.Atoi(p); err != nil {
			n = 0 // no such page
		}
	}
	if st.Drift == nil {
		http.Error(w, "no such page of the drift: the status page links to those there are", http.StatusNotFound)
		return
	}
	var back bytes.Buffer
	if err := a.page.ExecuteTemplate(&back, "back", st); err != nil {
		a.log.Error("render drift page", "err", err)
		http.Error(w, "render drift page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	var page bytes.Buffer
	// back is html/template output, so it is already escaped.
	h := drift.HTML{Top: template.HTML(back.String()), Link: driftLink}
	switch err := st.Drift.WriteGroupHTML(&page, h, g, n); {
	case errors.Is(err, drift.ErrNoGroup):
		http.Error(w, "no such page of the drift: the status page links to those there are", http.StatusNotFound)
		return
	case err != nil:
		a.log.Error("render drift page", "err", err)
		http.Error(w, "render drift page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	writePage(w, page.Bytes())
}

func writePage(w http.ResponseWriter, page []byte) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// As the page's own meta tag: no scripts, nothing fetched. Its meta
	// refresh is a navigation, which the policy leaves alone.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	_, _ = w.Write(page)
}
