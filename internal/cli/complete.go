package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/internal/config"
)

// Shell completion (ipsync completion bash|zsh|fish|powershell) comes with
// cobra; these teach it the values of ipsync's flags.

// completionCommand makes cobra's completion command (made here rather
// than when it runs) hold to ipsync's rules: a shell it has no script for
// is a usage error, not its help and exit 0, which would pass in a
// provisioning script unnoticed; and it takes the log flags every other
// command takes, hidden since it logs nothing, so an alias that adds them
// still works.
func completionCommand(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sub := range c.Commands() {
			shells = append(shells, sub.Name())
			addLogFlags(sub, "warn", "text")
			_ = sub.Flags().MarkHidden("log-level")
			_ = sub.Flags().MarkHidden("log-format")
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return usagef("no completion script for the shell %q: want one of %s", args[0], strings.Join(shells, ", "))
		}
	}
}

// words completes a flag to one of a fixed set of values.
func words(ws ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(ws, cobra.ShellCompDirectiveNoFileComp)
}

// siteNames completes --site from the sites of the --config given so far.
func siteNames(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
	path, _ := cmd.Flags().GetString("config")
	if path == "" {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	cfg, err := config.Load(path)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, s := range cfg.Sites {
		names = append(names, s.Name)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// completions registers what each flag of cmd that ipsync knows the
// values of completes to; flags cmd lacks are passed over.
func completions(cmd *cobra.Command) {
	fixed := map[string][]string{
		"target":     {"nautobot", "netbox", "memory", "neutron"},
		"mode":       {"sync", "upsert-only", "create-only"},
		"log-level":  {"debug", "info", "warn", "error"},
		"log-format": {"text", "json"},
		"output":     {"text", "json"},
	}
	if cmd.Name() == "drift" {
		fixed["output"] = []string{"text", "json", "html"}
	}
	for name, ws := range fixed {
		if cmd.Flags().Lookup(name) != nil {
			_ = cmd.RegisterFlagCompletionFunc(name, words(ws...))
		}
	}
	if cmd.Flags().Lookup("site") != nil {
		_ = cmd.RegisterFlagCompletionFunc("site", siteNames)
	}
	for _, name := range []string{"config", "plan"} {
		if f := cmd.Flags().Lookup(name); f != nil {
			ext := []string{"yaml", "yml"}
			if name == "plan" {
				ext = []string{"json"}
			}
			_ = cmd.MarkFlagFilename(name, ext...)
		}
	}
}
