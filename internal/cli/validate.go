package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/spec"
)

func newValidate(e *env) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check spec files (schema and semantics); no network, nothing written",
		Long: `Validate reads every spec file (a directory means all *.yaml and *.yml under it)
and reports every problem as file:line:col: field: message. Exit status 1 on any error.`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, paths []string) error {
			objs, err := e.loadSpec(paths, resource.StaticOwner(name))
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(e.stdout, "%d objects in %d path(s): valid\n", len(objs), len(paths))
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
		fmt.Fprintf(e.stderr, "%d error(s); nothing was written\n", len(diags))
		return nil, errReported
	}
	return objs, nil
}
