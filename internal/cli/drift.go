package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/rangehealth"
	"github.com/ipsync/ipsync/internal/reconcile"
	"github.com/ipsync/ipsync/internal/resource"
)

// driftFlags are drift's own: a read-only report takes none of the
// policy flags that only matter to writes.
type driftFlags struct {
	config string
	target string
	sites  []string
	output string
	out    string
}

func newDrift(e *env) *cobra.Command {
	var f driftFlags
	cmd := &cobra.Command{
		Use: "drift [SPEC-PATH...]",
		Example: `  ipsync drift --config ipsync.yaml
  ipsync drift --config ipsync.yaml --site a11 -o html --out drift.html
  ipsync drift --config ipsync.yaml -o json | jq '.owners[].items | length'`,
		Short: "Report where the sides disagree, per owner (read-only)",
		Long: `Drift plans the static spec and every site of the config (or the --site given)
against the target and reports, per owner, what is missing, different or extra in
the target, which objects are in the way (unmarked or owned by someone else), and
the leaks the sources point out. It never writes. A side that cannot be read is
reported as such, not as drift, and makes the exit status 1.

Exit status: 0 the sides agree, 2 they disagree (drift or leaks), 1 a side could
not be read or another error, 64 usage error.`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			if cmd.Flags().Changed("format") && !cmd.Flags().Changed("output") {
				f.output, _ = cmd.Flags().GetString("format")
			}
			if err := checkOutput(f.output, "text", "json", "html"); err != nil {
				return err
			}
			saved, err := createOutFile(f.out)
			if err != nil {
				return err
			}
			defer saved.discard()
			rep, err := e.drift(cmd.Context(), &f, paths)
			if err != nil {
				return err
			}
			write := func(w io.Writer) error { return writeReport(w, rep, f.output) }
			if saved != nil {
				err = saved.write(write)
			} else {
				err = write(e.stdout)
			}
			if err != nil {
				return err
			}
			return driftStatus(e.stderr, rep)
		},
	}
	cmd.Flags().StringVarP(&f.config, "config", "c", "", "config file (ipsync.yaml); without it, spec paths come from the arguments")
	cmd.Flags().StringVar(&f.target, "target", "", "target: nautobot or netbox (the config's server of that name; default: the config's target) or memory (an empty in-process target)")
	cmd.Flags().StringSliceVar(&f.sites, "site", nil, "report only these sites (repeat or separate with commas; default: every site of the config)")
	cmd.Flags().StringVarP(&f.output, "output", "o", "text", "output format: text, json or html")
	cmd.Flags().StringVar(&f.out, "out", "", "write the report to this file instead of stdout")
	// Earlier spellings, kept so scripts keep working; --help shows only one.
	// Their deprecation notice must not land in the report on stdout.
	cmd.Flags().SetOutput(e.stderr)
	cmd.Flags().String("format", "text", "")
	_ = cmd.Flags().MarkDeprecated("format", "use -o/--output")
	cmd.Flags().StringSliceVar(&f.sites, "sites", nil, "")
	_ = cmd.Flags().MarkDeprecated("sites", "use --site")
	return cmd
}

// drift builds the report of every owner. Mistakes that concern all of
// them (an unknown site, no way to reach the target) end it before any
// read; a side that fails for one owner is that owner's error.
func (e *env) drift(ctx context.Context, f *driftFlags, paths []string) (*drift.Report, error) {
	cfg, err := loadConfig(f.config)
	if err != nil {
		return nil, err
	}
	for _, s := range f.sites {
		if _, err := cfg.Site(s); err != nil {
			return nil, usage(fmt.Errorf("--site: %w", err))
		}
	}
	switch f.target {
	case "", config.TargetNautobot, config.TargetNetBox, "memory":
	case "neutron":
		return nil, usagef("--target neutron: drift compares the spec and the sites with nautobot, netbox or memory; the spec's segment ranges are compared with the Neutron of each site that takes them (sites[].segment_ranges)")
	default:
		return nil, usagef("--target %q: want nautobot, netbox or memory", f.target)
	}
	sites := f.sites
	if len(sites) == 0 {
		for _, s := range cfg.Sites {
			sites = append(sites, s.Name)
		}
	}
	useTarget(cfg, f.target)
	if f.target == config.TargetNautobot || f.target == config.TargetNetBox || (f.target == "" && cfg.TargetURL() != "") {
		if _, err := e.openServer(cfg, nil); err != nil {
			return nil, err
		}
	}
	rep := &drift.Report{GeneratedAt: time.Now().UTC(), Ranges: &drift.Ranges{Threshold: cfg.Agent.RangeThreshold, Above: []drift.Range{}}}
	owners := append([]string{""}, sites...) // "" is the static spec
	for _, site := range owners {
		pf := planFlags{config: f.config, target: f.target, site: site, output: "text"}
		o, ranges := e.driftOf(ctx, cfg, &pf, paths, &rep.Target)
		rep.Owners = append(rep.Owners, o)
		// A report has no history: how full, not how fast.
		rs := drift.RangesOf(site, rangehealth.Now(ranges), rep.Ranges.Threshold)
		rep.Ranges.Counted += rs.Counted
		rep.Ranges.Above = append(rep.Ranges.Above, rs.Above...)
		// The spec's segment ranges and subnet pools of a site that takes
		// them are compared with its Neutron, where they go, as plan
		// --target neutron and the site's agent do.
		if s, err := cfg.Site(site); err == nil && (s.SegmentRanges || s.SubnetPools) {
			pf := planFlags{config: f.config, target: "neutron", site: site, output: "text"}
			o, _ := e.driftOf(ctx, cfg, &pf, paths, nil)
			o.Target = "neutron:" + site
			rep.Owners = append(rep.Owners, o)
		}
	}
	// Nothing counted (the static spec alone, sites that could not be
	// read): no section saying so.
	if rep.Ranges.Counted == 0 {
		rep.Ranges = nil
	}
	return rep, nil
}

// driftStatus is drift's exit status: an owner that could not be checked
// is an error, even beside drift elsewhere, since the report is incomplete.
func driftStatus(stderr io.Writer, rep *drift.Report) error {
	failed := 0
	for _, o := range rep.Owners {
		if o.Error != "" {
			failed++
		}
	}
	switch {
	case failed > 0:
		fmt.Fprintf(stderr, "drift: %s could not be checked; the report is incomplete\n", plural.Of(failed, "owner"))
		return status(ExitError)
	case rep.Count() > 0:
		return status(ExitChanges)
	}
	return nil
}

// driftOf plans one owner and turns the plan into its drift; failures to read
// a side become the owner's error, so one unreachable site does not hide the
// others. target, when not nil, learns what the owner was compared with.
// A site's ranges come with it, counted on the same reads.
func (e *env) driftOf(ctx context.Context, cfg *config.Config, f *planFlags, paths []string, target *string) (drift.Owner, []rangehealth.Usage) {
	name := "static spec"
	if f.site != "" && f.target != "neutron" {
		name = "site " + f.site
	}
	job, err := e.prepare(ctx, f, paths)
	if err != nil {
		if errors.Is(err, errReported) {
			err = fmt.Errorf("%s does not validate (see above)", name)
		}
		owner := cfg.StaticOwner()
		if f.site != "" && f.target != "neutron" {
			owner = resource.NeutronOwner(f.site)
		}
		return drift.Owner{Owner: owner, Error: err.Error()}, nil
	}
	defer job.close()
	if target != nil {
		*target = job.targetID
	}
	r, err := job.plan(ctx)
	if err != nil {
		return drift.Owner{Owner: job.policy.Owner, Error: err.Error()}, nil
	}
	return ownerDrift(r, job.leaks), job.ranges
}

// ownerDrift is the drift of r's owner: its plan's changes, the leaks its
// source pointed out, and the references that do not resolve.
func ownerDrift(r *reconcile.Result, leaks []drift.Leak) drift.Owner {
	leaks = slices.Clone(leaks)
	for _, p := range r.Problems {
		leaks = append(leaks, drift.Leak{Kind: "reference", Key: p.Key.String(), Message: p.String()})
	}
	return drift.FromPlan(r.Plan, leaks)
}

func writeReport(w io.Writer, rep *drift.Report, format string) error {
	switch format {
	case "text":
		return rep.WriteText(w)
	case "json":
		return rep.WriteJSON(w)
	case "html":
		return rep.WriteHTML(w, drift.HTML{})
	}
	return usagef("--output %q: want text, json or html", format)
}
