// Command diffsync-bench writes the whole plan step's benchmark data as
// a JSON-lines file, and measures the CPU ipsync spends from that file to
// a plan: the side of the comparison with DiffSync that run.sh runs.
//
//	go run ./bench/diffsync -n 1000000 -write objects.jsonl
//	go run ./bench/diffsync -read objects.jsonl [-beside SECONDS]
//
// A line is one object of one side: {"side":"current","ip_address":{...}},
// the object as ipsync's resource types write it (saved plans hold the
// same form).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/ipsync/ipsync/internal/benchdata"
	"github.com/ipsync/ipsync/internal/httpapi"
	"github.com/ipsync/ipsync/internal/nautobot"
	"github.com/ipsync/ipsync/internal/plan"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

const owner = resource.Owner("bench:site-a")

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "diffsync-bench:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("diffsync-bench", flag.ContinueOnError)
	n := fs.Int("n", 100_000, "objects a side (as benchdata.Resolved counts them)")
	write := fs.String("write", "", "write the JSON-lines file here")
	read := fs.String("read", "", "read this JSON-lines file and plan")
	beside := fs.Float64("beside", 0, "DiffSync's CPU seconds for load and diff, to print the ratio")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *write != "":
		return writeLines(*write, *n)
	case *read != "":
		return measure(*read, *beside, out)
	}
	return errors.New("give -write or -read")
}

// line is one object of one side.
type line struct {
	Side      string              `json:"side"` // "desired" or "current"
	Namespace *resource.Namespace `json:"namespace,omitempty"`
	VLANGroup *resource.VLANGroup `json:"vlan_group,omitempty"`
	VLAN      *resource.VLAN      `json:"vlan,omitempty"`
	Prefix    *resource.Prefix    `json:"prefix,omitempty"`
	IPAddress *resource.IPAddress `json:"ip_address,omitempty"`
}

func (l *line) object() (resource.Object, error) {
	switch {
	case l.Namespace != nil:
		return l.Namespace, nil
	case l.VLANGroup != nil:
		return l.VLANGroup, nil
	case l.VLAN != nil:
		return l.VLAN, nil
	case l.Prefix != nil:
		return l.Prefix, nil
	case l.IPAddress != nil:
		return l.IPAddress, nil
	}
	return nil, errors.New("a line without an object")
}

func writeLines(path string, n int) error {
	desired, current := benchdata.Resolved(n, owner)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	enc := json.NewEncoder(w)
	for side, objs := range map[string][]resource.Object{"desired": desired, "current": current} {
		for _, o := range objs {
			l := line{Side: side}
			switch x := o.(type) {
			case *resource.Namespace:
				l.Namespace = x
			case *resource.VLANGroup:
				l.VLANGroup = x
			case *resource.VLAN:
				l.VLAN = x
			case *resource.Prefix:
				l.Prefix = x
			case *resource.IPAddress:
				l.IPAddress = x
			default:
				return fmt.Errorf("no line for %T", o)
			}
			if err := enc.Encode(l); err != nil {
				return err
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// load reads the file into both sides with decode.
func load(path string, decode func([]byte, any) error) (desired, current []resource.Object, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			i = len(b)
		}
		var l line
		if err := decode(b[:i], &l); err != nil {
			return nil, nil, err
		}
		b = b[min(i+1, len(b)):]
		o, err := l.object()
		if err != nil {
			return nil, nil, err
		}
		if l.Side == "desired" {
			desired = append(desired, o)
		} else {
			current = append(current, o)
		}
	}
	return desired, current, nil
}

// cpu is the CPU time the process has used, on all threads: the garbage
// collector's and the planner's second core count.
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func measure(path string, beside float64, out io.Writer) error {
	for _, d := range []struct {
		name   string
		decode func([]byte, any) error
	}{{"encoding/json", json.Unmarshal}, {"json v2, shared strings", httpapi.NewDecoder().Decode}} {
		runtime.GC()
		start, wall := cpu(), time.Now()
		desired, current, err := load(path, d.decode)
		if err != nil {
			return err
		}
		loaded := cpu()
		r, err := reconcile.Make(context.Background(), target{current}, func(context.Context, []resource.Object) ([]resource.Object, error) { return desired, nil },
			plan.DefaultPolicy(owner), scope.Scope{})
		if err != nil {
			return err
		}
		end, took := cpu(), time.Since(wall)
		total := (end - start).Seconds()
		fmt.Fprintf(out, "ipsync (%s): %d+%d objects, %d changes: load %.2f CPU-s, plan %.2f CPU-s, total %.2f CPU-s (%.2f s wall)",
			d.name, len(desired), len(current), len(r.Plan.Changes), (loaded - start).Seconds(), (end - loaded).Seconds(), total, took.Seconds())
		if beside > 0 {
			fmt.Fprintf(out, "; DiffSync %.2f CPU-s is %.1fx", beside, beside/total)
		}
		fmt.Fprintln(out)
	}
	return nil
}

// target answers a plan with the objects read from the file.
type target struct{ current []resource.Object }

func (target) Server() string                                  { return "the JSON-lines file" }
func (t target) Read(context.Context) (reconcile.State, error) { return t, nil }
func (t target) Objects() []resource.Object                    { return t.current }
func (target) AsStored(o resource.Object) resource.Object      { return o }
func (target) Apply(context.Context, []plan.Change) (int, error) {
	return 0, errors.New("the benchmark target does not write")
}
func (target) Check(c plan.Change, _ *plan.Plan) error {
	if c.Desired == nil {
		return nil
	}
	return nautobot.Supports(c.Desired)
}
func (target) Names() map[resource.Kind]map[string]bool {
	return map[resource.Kind]map[string]bool{resource.RefStatus: {"Active": true}, resource.RefTenant: {"tenant-x": true}, resource.RefTag: {"tenant": true}}
}
