package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/internal/nautobot/nautobottest"
)

// demoSeed is what examples/ refers to and Nautobot owns: in a real
// installation these exist before ipsync runs.
var demoSeed = nautobottest.SeedData{
	Locations: []string{"DC-A11", "DC-B22"},
	Roles:     []string{"provisioning", "storage", "oob", "loopback"},
	Tenants:   []string{"platform", "netops"},
	Tags:      []string{"routed", "pxe"},
}

func newDemo(e *env) *cobra.Command {
	var specPath string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run validate -> plan -> apply -> plan -> drift on the examples against a built-in Nautobot EMULATOR",
		Long: `Demo starts ipsync's in-process emulator of the Nautobot REST API (not a real
Nautobot), seeds the locations, roles and tenants the examples refer to, and runs the
real commands against it: validate, bootstrap, plan, apply --commit, plan again
(which shows no changes) and drift. Nothing outside this process is touched.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			srv := nautobottest.NewServer()
			defer srv.Close()
			if err := srv.Seed(demoSeed); err != nil {
				return fmt.Errorf("seed emulator: %w", err)
			}
			dir, err := os.MkdirTemp("", "ipsync-demo-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			spec, err := filepath.Abs(specPath)
			if err != nil {
				return err
			}
			tokenFile := filepath.Join(dir, "token")
			if err := os.WriteFile(tokenFile, []byte(nautobottest.DefaultToken+"\n"), 0o600); err != nil {
				return err
			}
			cfgPath := filepath.Join(dir, "ipsync.yaml")
			cfg := fmt.Sprintf("spec: {name: demo, paths: [%q]}\nnautobot: {url: %q, token_file: %q}\nallowed_hosts: [127.0.0.1]\n",
				spec, srv.URL(), tokenFile)
			if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "ipsync demo: a Nautobot EMULATOR (not a real Nautobot) listens on %s\n", srv.URL())
			fmt.Fprintf(e.stdout, "seeded: locations %s; roles %s; tenants %s\n",
				strings.Join(demoSeed.Locations, ", "), strings.Join(demoSeed.Roles, ", "), strings.Join(demoSeed.Tenants, ", "))
			steps := [][]string{
				{"validate", specPath},
				{"bootstrap", "--config", cfgPath, "--commit"},
				{"plan", "--config", cfgPath},
				{"apply", "--config", cfgPath, "--commit"},
				{"plan", "--config", cfgPath},
				{"drift", "--config", cfgPath},
			}
			for _, args := range steps {
				fmt.Fprintf(e.stdout, "\n$ ipsync %s\n", strings.Join(demoArgs(args, cfgPath), " "))
				if code := Main(ctx, args, e.getenv, e.stdout, e.stdout); code != ExitOK && code != ExitChanges {
					return fmt.Errorf("demo step %q failed with exit status %d", strings.Join(args, " "), code)
				}
			}
			fmt.Fprintf(e.stdout, "\ndemo done: %d requests served by the emulator\n", srv.Requests("", "/api/"))
			return nil
		},
	}
	cmd.Flags().StringVar(&specPath, "spec", "examples", "spec to run the demo with")
	return cmd
}

// demoArgs shows the temporary config path as what a user would type.
func demoArgs(args []string, cfgPath string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == cfgPath {
			a = "ipsync.yaml"
		}
		out[i] = a
	}
	return out
}
