// Package cli is ipsync's command line: it parses flags, wires adapters to
// the plan engine and renders results. Everything the process gets from the
// OS comes in through Main's parameters, so every command runs in tests.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/cobra"
)

// Version is set at build time with -ldflags "-X ...cli.Version=v1.2.3".
var Version = "dev"

// env is what commands get from the process.
type env struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
	logger *slog.Logger
}

// exitError carries an exit status other than 1.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// errReported means the command already printed what went wrong.
var errReported = errors.New("reported")

// Main runs ipsync with args and returns the process exit status.
func Main(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	e := &env{getenv: getenv, stdout: stdout, stderr: stderr}
	root := newRoot(e)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	if !errors.Is(err, errReported) {
		fmt.Fprintf(stderr, "ipsync: %v\n", err)
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if strings.Contains(err.Error(), "unknown command") || strings.Contains(err.Error(), "flag") {
		return 2
	}
	return 1
}

func newRoot(e *env) *cobra.Command {
	var logLevel, logFormat string
	root := &cobra.Command{
		Use:           "ipsync",
		Short:         "Keep Nautobot in agreement with a static YAML spec and each site's Neutron",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			l, err := newLogger(e.stderr, logLevel, logFormat)
			if err != nil {
				return &exitError{2, err}
			}
			e.logger = l
			return nil
		},
	}
	root.PersistentFlags().StringVar(&logLevel, "log-level", "warn", "log level: debug, info, warn or error")
	root.PersistentFlags().StringVar(&logFormat, "log-format", "text", "log format: text or json")
	root.AddCommand(newValidate(e), newPlan(e), newApply(e), newBootstrap(e), newDrift(e), newDemo(e), newAgent(e), newVersion(e))
	return root
}

func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

func newVersion(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print ipsync's version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(e.stdout, "ipsync %s (plan format %d)\n", Version, planFormat)
			return err
		},
	}
}
