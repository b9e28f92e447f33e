package cli

import (
	"crypto/rand"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/nautobot"
	"github.com/ipsync/ipsync/internal/lease"
	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/resource"
	"github.com/ipsync/ipsync/internal/scope"
)

// nautobotToken reads the API token from the environment or the configured
// file. Never from a flag: flags end up in shell history and process lists.
func (e *env) nautobotToken(cfg *config.Config) (string, error) {
	if t := strings.TrimSpace(e.getenv("IPSYNC_NAUTOBOT_TOKEN")); t != "" {
		return t, nil
	}
	if cfg.Nautobot.TokenFile == "" {
		return "", fmt.Errorf("no Nautobot token: set IPSYNC_NAUTOBOT_TOKEN or nautobot.token_file in the config")
	}
	b, err := os.ReadFile(cfg.Nautobot.TokenFile)
	if err != nil {
		return "", fmt.Errorf("nautobot token: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

func (e *env) nautobotClient(cfg *config.Config, opts ...nautobot.Option) (*nautobot.Client, error) {
	if cfg.Nautobot.URL == "" {
		return nil, fmt.Errorf("no Nautobot: set nautobot.url in the config")
	}
	token, err := e.nautobotToken(cfg)
	if err != nil {
		return nil, err
	}
	n := cfg.Nautobot
	return nautobot.New(nautobot.Config{URL: n.URL, Token: token, APIVersion: n.APIVersion, PageSize: n.PageSize, BatchSize: n.BatchSize,
		Concurrency: n.Concurrency, InsecureSkipVerify: n.InsecureSkipVerify, Timeout: n.Timeout,
		Tag: cfg.Marker.Tag, OwnerField: cfg.Marker.CustomField, VNIField: cfg.Marker.VNIField}, e.logger.With("side", "nautobot"), opts...)
}

// openNautobot makes Nautobot, read within sc, the job's target.
func (e *env) openNautobot(cfg *config.Config, sc scope.Scope, j *job) error {
	c, err := e.nautobotClient(cfg, nautobot.WithProgress(j.progress))
	if err != nil {
		return err
	}
	j.writesProgress = true
	j.target = c.Target(sc)
	j.targetID = cfg.Nautobot.URL
	j.writeOK = func() error { return cfg.WriteAllowed(cfg.Nautobot.URL) }
	return nil
}

// openLease is the agent's one-writer-per-owner lease, held in Nautobot.
func (e *env) openLease(cfg *config.Config, owner resource.Owner) (agent.Lease, error) {
	c, err := e.nautobotClient(cfg)
	if err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	// Containers often share a host name pattern and pid 1; the random part
	// keeps two agents from taking each other's lease for their own.
	holder := fmt.Sprintf("%s/%d/%s", host, os.Getpid(), rand.Text()[:8])
	return lease.New(c, lease.NautobotTags, lease.Config{Name: string(owner), Holder: holder, TTL: cfg.Agent.LeaseTTL}), nil
}

func newBootstrap(e *env) *cobra.Command {
	var configPath string
	var commit bool
	cmd := &cobra.Command{
		Use:   "bootstrap --config F [--commit]",
		Short: "Create ipsync's marker tag and custom fields in Nautobot (idempotent)",
		Long: `Bootstrap creates what ipsync needs in Nautobot before the first apply: the tag
marking ipsync's objects (default managed-by-ipsync) and the custom fields ipsync_owner
(text) and vni (integer) on the IPAM content types. Existing ones are left as they are.
Without --commit it only says what it would create.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if configPath == "" {
				return usagef("bootstrap needs --config: the Nautobot to prepare")
			}
			cfg, err := loadConfig(configPath)
			if err != nil {
				return err
			}
			c, err := e.nautobotClient(cfg)
			if err != nil {
				return err
			}
			if !commit {
				missing, err := c.BootstrapPlan(cmd.Context())
				if err != nil {
					return err
				}
				for _, m := range missing {
					fmt.Fprintf(e.stdout, "would create %s\n", m)
				}
				fmt.Fprintf(e.stderr, "dry run: %s missing; rerun with --commit to create them\n", plural.Of(len(missing), "object"))
				return nil
			}
			if err := cfg.WriteAllowed(cfg.Nautobot.URL); err != nil {
				return err
			}
			created, err := c.Bootstrap(cmd.Context())
			if err != nil {
				return err
			}
			for _, m := range created {
				fmt.Fprintf(e.stdout, "created %s\n", m)
			}
			if len(created) == 0 {
				fmt.Fprintln(e.stdout, "bootstrap: everything ipsync needs is already in Nautobot")
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&configPath, "config", "c", "", "config file (ipsync.yaml) (required)")
	cmd.Flags().BoolVar(&commit, "commit", false, "create what is missing (without it, bootstrap only reports)")
	return cmd
}
