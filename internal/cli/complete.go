package cli

import (
	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/internal/config"
)

// Shell completion (ipsync completion bash|zsh|fish|powershell) comes with
// cobra; these teach it the values of ipsync's flags.

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
