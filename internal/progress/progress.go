// Package progress shows how far a long read or write has got: live bars
// per kind on a terminal (done / total, rate, time left), and structured
// log lines otherwise, so that a run of minutes never looks hung and
// nothing of it lands on stdout, where plans and reports go.
package progress

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// IsTerminal reports whether w is a terminal a person watches.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Display tracks counts per label ("write vlan", "read nautobot vlans").
// Its methods are safe for concurrent use. Work comes in phases (read,
// then write, with a plan printed between): Flush ends one, and the next
// Expect or Add starts another.
type Display struct {
	w        io.Writer
	terminal bool
	log      *slog.Logger
	interval time.Duration

	mu     sync.Mutex
	bars   *mpb.Progress // the phase's bars; nil before the first, or without a terminal
	counts map[string]*count
	order  []string
	// tick stops the phase's log lines; nil while none runs.
	tick chan struct{}
	// ticked: the phase has logged a line, so its end is logged too; a
	// phase shorter than the interval logs nothing.
	ticked bool
}

type count struct {
	done, total int
	known       bool // total is known up front
	start       time.Time
	last        time.Time // when done last grew
	bar         *mpb.Bar
}

// New shows progress on w as bars when terminal is true; otherwise as
// info lines on log: every interval while a phase runs, whether or not
// anything was done since (a bulk write waiting on its server must not
// look hung), and at its end.
func New(w io.Writer, terminal bool, log *slog.Logger, interval time.Duration) *Display {
	return &Display{w: w, terminal: terminal, log: log, interval: interval, counts: map[string]*count{}}
}

// Expect announces that total more items of label will come, for labels
// whose total is known before the work starts (a plan's writes, a list
// that gave its count).
func (d *Display) Expect(label string, total int) {
	if d == nil || total <= 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.entry(label, true)
	c.total += total
	if c.bar != nil {
		c.bar.SetTotal(int64(c.total), false)
	}
}

// Add records n more items of label done; a label never announced counts
// up without a total (a Neutron collection, whose size is not known).
func (d *Display) Add(label string, n int) {
	if d == nil || n <= 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.entry(label, false)
	c.done += n
	c.last = time.Now()
	if c.bar != nil {
		if !c.known && c.done > c.total {
			c.total = c.done
			c.bar.SetTotal(int64(c.total), false)
		}
		c.bar.IncrBy(n)
	}
}

// ticks logs every label's line each interval until stop is closed. The
// lines come from a clock of their own, not from Add: a line written
// when the first object of a batch is counted would say done=1 with a
// rate from the whole wait before it, while the rest of the batch is
// counted a moment later.
func (d *Display) ticks(stop chan struct{}) {
	t := time.NewTicker(d.interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			d.mu.Lock()
			if d.tick == stop {
				d.ticked = true
				for _, label := range d.order {
					d.logLine(label, d.counts[label], now)
				}
			}
			d.mu.Unlock()
		}
	}
}

// entry returns label's count, making it (and its bar) on first use.
func (d *Display) entry(label string, known bool) *count {
	c, ok := d.counts[label]
	if ok {
		c.known = c.known || known
		return c
	}
	now := time.Now()
	c = &count{known: known, start: now, last: now}
	d.counts[label] = c
	d.order = append(d.order, label)
	if !d.terminal && d.interval > 0 && d.tick == nil {
		d.tick = make(chan struct{})
		go d.ticks(d.tick)
	}
	if d.terminal {
		if d.bars == nil {
			d.bars = mpb.New(mpb.WithOutput(d.w), mpb.WithWidth(32), mpb.WithRefreshRate(200*time.Millisecond), mpb.WithAutoRefresh())
		}
		c.bar = d.bars.New(0, mpb.BarStyle().Lbound("[").Rbound("]"),
			mpb.PrependDecorators(decor.Name(label, decor.WC{C: decor.DindentRight | decor.DextraSpace | decor.DSyncWidth}),
				decor.CountersNoUnit("%d / %d", decor.WCSyncWidth)),
			mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace), rateAndETA(now)))
	}
	return c
}

// rateAndETA shows objects per second since start and the time left at
// that rate; once complete, the rate and how long it all took, which the
// last frame of a short run must still show.
func rateAndETA(start time.Time) decor.Decorator {
	var end time.Time
	return decor.Any(func(s decor.Statistics) string {
		now := time.Now()
		if s.Completed || s.Aborted {
			if end.IsZero() {
				end = now
			}
			now = end
		}
		el := now.Sub(start)
		if el <= 0 {
			return ""
		}
		rate := float64(s.Current) / el.Seconds()
		switch {
		case s.Completed:
			return fmt.Sprintf("%.0f/s  took %s", rate, el.Round(10*time.Millisecond))
		case rate > 0 && s.Total > s.Current:
			return fmt.Sprintf("%.0f/s  %s left", rate, time.Duration(float64(s.Total-s.Current)/rate*float64(time.Second)).Round(time.Second))
		}
		return fmt.Sprintf("%.0f/s", rate)
	}, decor.WCSyncSpace)
}

func (d *Display) logLine(label string, c *count, now time.Time) {
	args := []any{"what", label, "done", c.done}
	if c.known {
		args = append(args, "total", c.total)
	}
	if el := now.Sub(c.start); el > 0 {
		rate := float64(c.done) / el.Seconds()
		args = append(args, "per_second", int(rate))
		if c.known && rate > 0 && c.done < c.total {
			args = append(args, "eta", time.Duration(float64(c.total-c.done)/rate*float64(time.Second)).Round(time.Second))
		}
	}
	if idle := now.Sub(c.last); d.interval > 0 && idle >= d.interval && (!c.known || c.done < c.total) {
		// Nothing done for a while: the server has the work.
		args = append(args, "waiting", idle.Round(time.Second))
	}
	d.log.Info("progress", args...)
}

// Flush draws the last state of every bar, or logs the last line of every
// label, and ends the phase.
func (d *Display) Flush() {
	if d == nil {
		return
	}
	d.mu.Lock()
	if d.tick != nil {
		close(d.tick)
		d.tick = nil
	}
	for _, label := range d.order {
		c := d.counts[label]
		if c.bar == nil {
			if d.ticked || d.interval <= 0 {
				d.logLine(label, c, time.Now())
			}
			continue
		}
		if c.done >= c.total {
			c.bar.SetTotal(int64(c.done), true)
		} else {
			c.bar.Abort(false) // stopped short: keep the bar where it stopped
		}
	}
	bars := d.bars
	d.bars, d.counts, d.order, d.ticked = nil, map[string]*count{}, nil, false
	d.mu.Unlock()
	if bars != nil {
		bars.Wait()
	}
}
