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
	"time"

	"github.com/spf13/cobra"
)

// Exit statuses. plan and drift follow terraform plan -detailed-exitcode
// (0, 1, 2); 3 and 64 tell automation why nothing will happen, so that a
// refused plan never looks like one it can apply, nor like a typo.
const (
	ExitOK      = 0  // done; for plan and drift: no changes, in agreement
	ExitError   = 1  // something failed: invalid spec, a side unreachable, a write failed
	ExitChanges = 2  // plan: changes to apply; drift: the sides disagree
	ExitRefused = 3  // the plan will not be applied: conflicts, mass-delete guard, unresolved references, VIDs outside their range, a stale saved plan; or objects of a saved plan refused one by one because they changed since it was made
	ExitReview  = 4  // apply --review: written to a branch that awaits review; main is untouched
	ExitUsage   = 64 // the command line is wrong: unknown command or flag, bad flag value, missing argument (sysexits EX_USAGE)
)

// exitCodesHelp is the part of --help that documents the exit statuses.
const exitCodesHelp = `Exit status:
  0   done; plan and drift: no changes, the sides agree
  1   error: invalid spec or config, a side unreachable, a write failed
  2   plan: there are changes to apply; drift: the sides disagree
  3   refused: the plan will not be applied (conflicts, mass-delete guard,
      unresolved references, VIDs outside their group's range, stale saved plan);
      apply --plan against NetBox: objects changed since the plan refused, the
      rest written
  4   apply --review: written to a NetBox branch awaiting review, main untouched
  64  usage: unknown command or flag, bad flag value, missing argument`

// env is what commands get from the process.
type env struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
	logger *slog.Logger
	// progressLog takes the progress lines of runs without a terminal.
	progressLog *slog.Logger
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

// usage marks err as a mistake on the command line.
func usage(err error) error { return &exitError{ExitUsage, err} }

// usagef is usage with a formatted message.
func usagef(format string, args ...any) error { return usage(fmt.Errorf(format, args...)) }

// status ends a command that printed everything it had to say with code.
func status(code int) error {
	if code == ExitOK {
		return nil
	}
	return &exitError{code, errReported}
}

// usageArgs makes an argument check's complaint a usage error.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usage(err)
		}
		return nil
	}
}

// Main runs ipsync with args and returns the process exit status.
func Main(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	e := &env{getenv: getenv, stdout: stdout, stderr: stderr}
	root := newRoot(e)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	// cobra reports an unknown command with a plain error.
	if strings.HasPrefix(err.Error(), "unknown command ") {
		err = usage(err)
	}
	if !errors.Is(err, errReported) {
		fmt.Fprintf(stderr, "ipsync: %v\n", err)
	}
	if ee, ok := errors.AsType[*exitError](err); ok {
		if ee.code == ExitUsage && !errors.Is(err, errReported) {
			fmt.Fprintf(stderr, "Run 'ipsync %s --help' for usage.\n", commandPath(root, args))
		}
		return ee.code
	}
	return ExitError
}

// commandPath names the subcommand args run, for the usage hint.
func commandPath(root *cobra.Command, args []string) string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == root {
		return ""
	}
	return strings.TrimPrefix(cmd.CommandPath(), root.Name()+" ")
}

func newRoot(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "ipsync",
		Short: "Keep Nautobot or NetBox in agreement with a static YAML spec and each site's Neutron",
		Long: `ipsync keeps a source of truth, Nautobot or NetBox (the config's target), in
agreement with a static YAML spec and with each site's Neutron. Every object has one
owner and flows one way; every command is a dry run unless given --commit.

` + exitCodesHelp + `

Environment:
  IPSYNC_NAUTOBOT_TOKEN     Nautobot API token (or nautobot.token_file in the config)
  IPSYNC_NETBOX_TOKEN       NetBox API token (or netbox.token_file in the config)
  IPSYNC_RABBITMQ_PASSWORD  agent: RabbitMQ password (or agent.rabbitmq.password_file)
  OS_AUTH_URL, OS_USERNAME, OS_PASSWORD, OS_PROJECT_NAME, OS_APPLICATION_CREDENTIAL_ID, ...
                            a site's Keystone login (neutron.auth: keystone without a cloud)
  OS_CLIENT_CONFIG_FILE     where clouds.yaml is (neutron.auth: keystone with a cloud)

Shell completion: source <(ipsync completion bash); see ipsync completion --help.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			// Commands without log flags (help, completion) log nothing
			// worth configuring; they get the defaults.
			level, format := "warn", "text"
			if f := cmd.Flags().Lookup("log-level"); f != nil {
				level = f.Value.String()
			}
			if f := cmd.Flags().Lookup("log-format"); f != nil {
				format = f.Value.String()
			}
			l, err := newLogger(e.stderr, level, format)
			if err != nil {
				return usage(err)
			}
			e.logger, e.progressLog = l, l
			if level == "warn" {
				// Progress is info, and shows at the default level too: a
				// run without a terminal (a CI job) says how far it got
				// without --log-level info; --log-level error hides it.
				e.progressLog, _ = newLogger(e.stderr, "info", format)
			}
			return nil
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage(err) })
	setVersionFlag(root)
	for _, cmd := range []*cobra.Command{newValidate(e), newPlan(e), newApply(e), newBootstrap(e), newDrift(e), newDemo(e), newVersion(e)} {
		addLogFlags(cmd, "warn", "text")
		root.AddCommand(cmd)
	}
	// The daemon logs what it does as JSON for a log pipeline; a person
	// at the terminal wants only what went wrong, as text.
	for _, daemon := range []*cobra.Command{newAgent(e), newReconcile(e)} {
		addLogFlags(daemon, "info", "json")
		root.AddCommand(daemon)
	}
	// The completion scripts go to where the root writes when the command
	// is made, so that is settled first.
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	completionCommand(root)
	for _, cmd := range root.Commands() {
		completions(cmd)
	}
	return root
}

// addLogFlags gives cmd --log-level and --log-format with the defaults it
// really uses, so that --help tells the truth.
func addLogFlags(cmd *cobra.Command, level, format string) {
	cmd.Flags().String("log-level", level, "log level: debug, info, warn or error")
	cmd.Flags().String("log-format", format, "log format: text or json")
}

func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv, ReplaceAttr: readableDuration}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

// readableDuration writes durations as "1.234s" or "10m0s" rather than as
// nanoseconds, which slog's JSON handler would print; to the millisecond,
// or the microsecond below one.
func readableDuration(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() != slog.KindDuration {
		return a
	}
	d := a.Value.Duration()
	switch {
	case d >= time.Second:
		d = d.Round(time.Millisecond)
	case d >= time.Millisecond:
		d = d.Round(time.Microsecond)
	}
	return slog.String(a.Key, d.String())
}
