package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/spec"
)

func newValidate(e *env) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use: "validate PATH...",
		Example: `  ipsync validate examples/
  ipsync validate --spec-name deploy specs/site-a11.yaml specs/common.yaml`,
		Short: "Check spec files (schema and semantics); no network, nothing written",
		Long: `Validate reads every spec file (a directory means all *.yaml and *.yml under it)
and reports every problem as file:line:col: field: message. Exit status 1 on any error.`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, paths []string) error {
			objs, err := e.loadSpec(paths, resource.StaticOwner(name))
			if err != nil {
				return err
			}
			files, err := spec.Files(paths)
			if err != nil {
				return err
			}
			msg := fmt.Sprintf("%s in %s: valid", plural.Of(len(objs), "object"), plural.Of(len(files), "file"))
			// plan against Nautobot or NetBox leaves segment ranges out; say where
			// they go, so the two counts add up.
			if n, p := countKind(objs, resource.KindSegmentRange), countKind(objs, resource.KindSubnetPool); n+p > 0 {
				what := plural.Of(n, "segment range")
				switch {
				case n == 0:
					what = plural.Of(p, "subnet pool")
				case p > 0:
					what += " and " + plural.Of(p, "subnet pool")
				}
				msg += fmt.Sprintf(" (%d for Nautobot or NetBox, %s for the sites' Neutron)", len(objs)-n-p, what)
			}
			_, err = fmt.Fprintln(e.stdout, msg)
			return err
		},
	}
	cmd.Flags().StringVar(&name, "spec-name", "default", "spec name; objects are owned by static:<name>")
	return cmd
}

// loadSpec loads and validates the spec, printing every diagnostic.
func (e *env) loadSpec(paths []string, owner resource.Owner) ([]resource.Object, error) {
	objs, diags, err := spec.Load(paths, owner)
	if err != nil {
		return nil, err
	}
	if len(diags) > 0 {
		for _, d := range diags {
			fmt.Fprintln(e.stderr, d.String())
		}
		fmt.Fprintf(e.stderr, "%s; nothing was written\n", plural.Of(len(diags), "error"))
		return nil, errReported
	}
	return objs, nil
}

func countKind(objs []resource.Object, k resource.Kind) int {
	n := 0
	for _, o := range objs {
		if o.Kind() == k {
			n++
		}
	}
	return n
}
