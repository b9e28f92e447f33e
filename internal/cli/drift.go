package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/drift"
	"github.com/ipsync/ipsync/internal/resource"
)

func newDrift(e *env) *cobra.Command {
	var f planFlags
	var format, out string
	var sites []string
	cmd := &cobra.Command{
		Use:   "drift [SPEC-PATH...]",
		Short: "Report where the sides disagree, per owner (read-only)",
		Long: `Drift plans the static spec and every site of the config (or the --sites given)
against the target and reports, per owner, what is missing, different or extra in
the target, which objects are in the way (unmarked or owned by someone else), and
the leaks the sources point out. It never writes. A side that cannot be read is
reported as unreachable, not as drift.`,
		RunE: func(cmd *cobra.Command, paths []string) error {
			ctx := cmd.Context()
			cfg, err := loadConfig(f.config)
			if err != nil {
				return err
			}
			if len(sites) == 0 {
				for _, s := range cfg.Sites {
					sites = append(sites, s.Name)
				}
			}
			rep := &drift.Report{GeneratedAt: time.Now().UTC()}
			owners := append([]string{""}, sites...) // "" is the static spec
			for _, site := range owners {
				sf := f
				sf.site = site
				rep.Owners = append(rep.Owners, e.driftOf(ctx, cfg, &sf, paths, &rep.Target))
			}
			w := e.stdout
			if out != "" {
				file, err := os.Create(out)
				if err != nil {
					return fmt.Errorf("drift report: %w", err)
				}
				defer file.Close()
				w = file
			}
			return writeReport(w, rep, format)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&format, "format", "text", "report format: text, json or html")
	cmd.Flags().StringVar(&out, "out", "", "write the report to this file instead of stdout")
	cmd.Flags().StringSliceVar(&sites, "sites", nil, "sites to report (default: every site of the config)")
	return cmd
}

// driftOf plans one owner and turns the plan into its drift; failures to read
// a side become the owner's error, so one unreachable site does not hide the
// others.
func (e *env) driftOf(ctx context.Context, cfg *config.Config, f *planFlags, paths []string, target *string) drift.Owner {
	name := "static spec"
	if f.site != "" {
		name = "site " + f.site
	}
	job, err := e.prepare(ctx, f, paths)
	if err != nil {
		if errors.Is(err, errReported) {
			err = fmt.Errorf("%s does not validate (see above)", name)
		}
		owner := cfg.StaticOwner()
		if f.site != "" {
			owner = resource.NeutronOwner(f.site)
		}
		return drift.Owner{Owner: owner, Error: err.Error()}
	}
	defer job.close()
	*target = job.targetID
	r, err := job.plan(ctx)
	if err != nil {
		return drift.Owner{Owner: job.policy.Owner, Error: err.Error()}
	}
	leaks := append([]drift.Leak(nil), job.leaks...)
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
		return rep.WriteHTML(w, "")
	}
	return &exitError{2, fmt.Errorf("--format %q: want text, json or html", format)}
}
