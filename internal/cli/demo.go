package cli

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/examples"
	"github.com/ipsync/ipsync/internal/nautobot/nautobottest"
	"github.com/ipsync/ipsync/internal/plural"
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
	var verbose bool
	cmd := &cobra.Command{
		Use: "demo",
		Example: `  ipsync demo
  ipsync demo --verbose --spec examples/`,
		Short: "Run validate -> plan -> apply -> plan -> drift on the examples against a built-in Nautobot EMULATOR",
		Long: `Demo starts ipsync's in-process emulator of the Nautobot REST API (not a real
Nautobot), seeds the locations, roles and tenants the examples refer to, and runs the
real commands against it in a temporary folder: validate, bootstrap, plan (saved),
apply of the saved plan, plan again (which shows no changes) and drift. The example
spec is built into ipsync, so demo runs from any directory. Nothing outside this
process and its temporary folder is touched.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			srv := nautobottest.NewServer()
			defer srv.Close()
			if err := srv.Seed(demoSeed); err != nil {
				return fmt.Errorf("seed emulator: %w", err)
			}
			dir, err := os.MkdirTemp("", "ipsync-demo-")
			if err != nil {
				return fmt.Errorf("demo folder: %w", err)
			}
			defer os.RemoveAll(dir)
			spec := "examples"
			if specPath == "" {
				if err := os.CopyFS(filepath.Join(dir, spec), examples.Spec()); err != nil {
					return fmt.Errorf("write the example spec: %w", err)
				}
			} else if spec, err = filepath.Abs(specPath); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "token"), []byte(nautobottest.DefaultToken+"\n"), 0o600); err != nil {
				return fmt.Errorf("demo token: %w", err)
			}
			// Relative paths in a config are relative to its folder.
			cfg := fmt.Sprintf("spec: {name: demo, paths: [%s]}\nnautobot: {url: %q, token_file: token}\nallowed_hosts: [127.0.0.1]\n", spec, srv.URL())
			cfgPath := filepath.Join(dir, "ipsync.yaml")
			if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
				return fmt.Errorf("demo config: %w", err)
			}
			w := e.stdout
			fmt.Fprintf(w, "ipsync demo: a Nautobot EMULATOR (not a real Nautobot) listens on %s\n", srv.URL())
			fmt.Fprintf(w, "seeded: locations %s; roles %s; tenants %s\n",
				strings.Join(demoSeed.Locations, ", "), strings.Join(demoSeed.Roles, ", "), strings.Join(demoSeed.Tenants, ", "))
			if specPath == "" {
				names, _ := fs.Glob(examples.Spec(), "*.yaml")
				fmt.Fprintf(w, "spec: the built-in examples (%s), written to %s/\n", strings.Join(names, ", "), spec)
			}
			fmt.Fprintf(w, "\n$ cat ipsync.yaml\n%s", cfg)

			summary := []string{"--summary"}
			if verbose {
				summary = nil
			}
			steps := []struct {
				args []string
				ok   []int
			}{
				{[]string{"validate", spec}, []int{ExitOK}},
				{[]string{"bootstrap", "--config", "ipsync.yaml", "--commit"}, []int{ExitOK}},
				{append([]string{"plan", "--config", "ipsync.yaml", "--out", "plan.json"}, summary...), []int{ExitChanges}},
				{[]string{"apply", "--config", "ipsync.yaml", "--plan", "plan.json", "--commit"}, []int{ExitOK}},
				{append([]string{"plan", "--config", "ipsync.yaml"}, summary...), []int{ExitOK}},
				{[]string{"drift", "--config", "ipsync.yaml"}, []int{ExitOK}},
			}
			for _, s := range steps {
				fmt.Fprintf(w, "\n$ ipsync %s\n", strings.Join(s.args, " "))
				code := e.demoStep(cmd, dir, s.args, w)
				if !slices.Contains(s.ok, code) {
					return fmt.Errorf("demo step %q failed with exit status %d", strings.Join(s.args, " "), code)
				}
				if code != ExitOK {
					fmt.Fprintf(w, "(exit status %d: changes to apply)\n", code)
				}
			}
			fmt.Fprintf(w, "\ndemo done: %s served by the emulator\n", plural.Of(srv.Requests("", "/api/"), "request"))
			if !verbose {
				fmt.Fprintln(w, "(ipsync demo --verbose lists every change)")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&specPath, "spec", "", "spec to run the demo with (default: the built-in examples)")
	cmd.Flags().BoolVar(&verbose, "verbose", false, "show each plan in full, every change, instead of its summary")
	return cmd
}

// demoStep runs one command as a user would from the demo's folder, where
// the files it names are.
func (e *env) demoStep(cmd *cobra.Command, dir string, args []string, w io.Writer) int {
	abs := make([]string, len(args))
	for i, a := range args {
		abs[i] = a
		if a == "ipsync.yaml" || a == "plan.json" || a == "examples" {
			abs[i] = filepath.Join(dir, a)
		}
	}
	return Main(cmd.Context(), abs, demoEnv(e.getenv), w, w)
}

// demoEnv hides what would point the demo's commands elsewhere than at the
// emulator: a token exported for a real Nautobot would be sent to the
// emulator instead of the demo's own.
func demoEnv(getenv func(string) string) func(string) string {
	return func(k string) string {
		if k == "IPSYNC_NAUTOBOT_TOKEN" {
			return ""
		}
		return getenv(k)
	}
}
