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

	"github.com/ipsync/ipsync/internal/nautobot/emulator"
)

// demoSeed is what examples/ refers to and Nautobot owns: in a real
// installation these exist before ipsync runs.
var demoSeed = emulator.SeedData{
	Locations: []string{"DC-A11", "DC-B22"},
	Roles:     []string{"provisioning", "storage", "oob", "loopback"},
	Tenants:   []string{"platform", "netops"},
	Tags:      []string{"routed", "pxe"},
}

func newDemo(e *env) *cobra.Command {
	var specPath, target, netboxURL string
	var verbose bool
	cmd := &cobra.Command{
		Use: "demo",
		Example: `  ipsync demo
  ipsync demo --verbose --spec examples/
  IPSYNC_NETBOX_TOKEN=nbt_... ipsync demo --target netbox --url http://127.0.0.1:8000`,
		Short: "Run validate -> plan -> apply -> plan -> drift on the examples against a built-in Nautobot EMULATOR",
		Long: `Demo starts ipsync's in-process emulator of the Nautobot REST API (not a real
Nautobot), seeds the locations, roles and tenants the examples refer to, and runs the
real commands against it in a temporary folder: validate, bootstrap, plan (saved),
apply of the saved plan, plan again (which shows no changes) and drift. The example
spec is built into ipsync, so demo runs from any directory. Nothing outside this
process and its temporary folder is touched.

With --target netbox there is no emulator: the demo runs against the NetBox at --url
(token in IPSYNC_NETBOX_TOKEN), with the examples' NetBox flavour (examples-netbox/),
and writes them to it as owner static:demo. That NetBox must hold the sites DC-A11 and
DC-B22, the roles, tenants and tags the examples name; the plan says what it lacks.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := e.demoTarget(target, netboxURL)
			if err != nil {
				return err
			}
			defer d.close()
			dir, err := os.MkdirTemp("", "ipsync-demo-")
			if err != nil {
				return fmt.Errorf("demo folder: %w", err)
			}
			defer os.RemoveAll(dir)
			spec := "examples"
			if specPath == "" {
				if err := os.CopyFS(filepath.Join(dir, spec), d.spec); err != nil {
					return fmt.Errorf("write the example spec: %w", err)
				}
			} else if spec, err = filepath.Abs(specPath); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "token"), []byte(d.token+"\n"), 0o600); err != nil {
				return fmt.Errorf("demo token: %w", err)
			}
			// Relative paths in a config are relative to its folder.
			cfg := fmt.Sprintf("spec: {name: demo, paths: [%s]}\n%s: {url: %q, token_file: token}\nallowed_hosts: [%s]\n", spec, d.section, d.url, d.host)
			cfgPath := filepath.Join(dir, "ipsync.yaml")
			if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
				return fmt.Errorf("demo config: %w", err)
			}
			w := e.stdout
			fmt.Fprintln(w, d.banner)
			if specPath == "" {
				names, _ := fs.Glob(d.spec, "*.yaml")
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
			if d.rerun {
				// A real server may hold the demo's objects from an
				// earlier run: then the first plan has nothing to do.
				steps[2].ok = append(steps[2].ok, ExitOK)
			}
			for _, s := range steps {
				fmt.Fprintf(w, "\n$ ipsync %s\n", strings.Join(s.args, " "))
				code := e.demoStep(cmd, dir, s.args, w, d.section)
				if !slices.Contains(s.ok, code) {
					return fmt.Errorf("demo step %q failed with exit status %d", strings.Join(s.args, " "), code)
				}
				if code != ExitOK {
					fmt.Fprintf(w, "(exit status %d: changes to apply)\n", code)
				}
			}
			fmt.Fprintf(w, "\ndemo done%s\n", d.done())
			if !verbose {
				fmt.Fprintln(w, "(ipsync demo --verbose lists every change)")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&specPath, "spec", "", "spec to run the demo with (default: the built-in examples)")
	cmd.Flags().BoolVar(&verbose, "verbose", false, "show each plan in full, every change, instead of its summary")
	cmd.Flags().StringVar(&target, "target", "nautobot", "nautobot (the built-in emulator) or netbox (a real NetBox at --url)")
	cmd.Flags().StringVar(&netboxURL, "url", "", "with --target netbox: the NetBox to run the demo against (token: IPSYNC_NETBOX_TOKEN)")
	return cmd
}

// demoStep runs one command as a user would from the demo's folder, where
// the files it names are.
func (e *env) demoStep(cmd *cobra.Command, dir string, args []string, w io.Writer, section string) int {
	abs := make([]string, len(args))
	for i, a := range args {
		abs[i] = a
		if a == "ipsync.yaml" || a == "plan.json" || a == "examples" {
			abs[i] = filepath.Join(dir, a)
		}
	}
	return Main(cmd.Context(), abs, demoEnv(e.getenv), w, w)
}

// demoEnv hides what would point the demo's commands elsewhere than at
// its server: a token exported for another server would be sent instead
// of the demo's own, which is in its token file.
func demoEnv(getenv func(string) string) func(string) string {
	return func(k string) string {
		if k == "IPSYNC_NAUTOBOT_TOKEN" || k == "IPSYNC_NETBOX_TOKEN" {
			return ""
		}
		return getenv(k)
	}
}
