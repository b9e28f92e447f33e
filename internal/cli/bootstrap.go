package cli

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"github.com/ipsync/ipsync/internal/agent"
	"github.com/ipsync/ipsync/internal/config"
	"github.com/ipsync/ipsync/internal/kubelease"
	"github.com/ipsync/ipsync/internal/lease"
	"github.com/ipsync/ipsync/internal/plural"
	"github.com/ipsync/ipsync/internal/resource"
)

// newLease is the agent's one-writer-per-owner lease: a tag in s, or a
// Kubernetes Lease (agent.lease).
func newLease(s *server, cfg *config.Config, owner resource.Owner, log *slog.Logger) (agent.Lease, error) {
	host, _ := os.Hostname()
	// Containers often share a host name pattern and pid 1; the random part
	// keeps two agents from taking each other's lease for their own.
	holder := fmt.Sprintf("%s/%d/%s", host, os.Getpid(), rand.Text()[:8])
	if cfg.Agent.Lease != config.LeaseKubernetes {
		return lease.New(s.api, s.tags, lease.Config{Name: string(owner), Holder: holder, TTL: cfg.Agent.LeaseTTL}), nil
	}
	// client-go logs through klog, which is process-wide and would write
	// plain text into the daemon's JSON log: routed to the daemon's own
	// logger, the one place ipsync sets klog.
	if log != nil {
		klog.SetSlogLogger(log.With("component", "kubernetes-client"))
	}
	kc := cfg.Agent.Kubernetes
	client, ns, err := kubelease.Client(kc.Kubeconfig, kc.Namespace, cfg.Agent.LeaseRenew)
	if err != nil {
		return nil, err
	}
	return kubelease.New(client, kubelease.Config{Namespace: ns, Owner: string(owner), Holder: holder, TTL: cfg.Agent.LeaseTTL}), nil
}

func newBootstrap(e *env) *cobra.Command {
	var configPath string
	var commit bool
	cmd := &cobra.Command{
		Use: "bootstrap --config F [--commit]",
		Example: `  ipsync bootstrap --config ipsync.yaml            # what it would create
  ipsync bootstrap --config ipsync.yaml --commit`,
		Short: "Create ipsync's marker tag and custom fields in the target, Nautobot or NetBox (idempotent)",
		Long: `Bootstrap creates what ipsync needs in the target (the config's Nautobot or NetBox)
before the first apply: the tag marking ipsync's objects (default managed-by-ipsync)
and the custom fields ipsync_owner (text) and vni (integer) on the IPAM object types.
Existing ones are left as they are. Without --commit it only says what it would create.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if configPath == "" {
				return usagef("bootstrap needs --config: the Nautobot or NetBox to prepare")
			}
			cfg, err := loadConfig(configPath)
			if err != nil {
				return err
			}
			s, err := e.openServer(cfg, nil)
			if err != nil {
				return err
			}
			if !commit {
				missing, err := s.boot.BootstrapPlan(cmd.Context())
				if err != nil {
					return err
				}
				for _, m := range missing {
					fmt.Fprintf(e.stdout, "would create %s\n", m)
				}
				fmt.Fprintf(e.stderr, "dry run: %s missing in %s; rerun with --commit to create them\n", plural.Of(len(missing), "object"), s.name)
				return nil
			}
			if err := cfg.WriteAllowed(s.url); err != nil {
				return &exitError{ExitRefused, err}
			}
			created, err := s.boot.Bootstrap(cmd.Context())
			if err != nil {
				return err
			}
			for _, m := range created {
				fmt.Fprintf(e.stdout, "created %s\n", m)
			}
			if len(created) == 0 {
				fmt.Fprintf(e.stdout, "bootstrap: everything ipsync needs is already in %s\n", s.name)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&configPath, "config", "c", "", "config file (ipsync.yaml) (required)")
	cmd.Flags().BoolVar(&commit, "commit", false, "create what is missing (without it, bootstrap only reports)")
	return cmd
}
