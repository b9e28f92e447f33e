package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version and Commit are set at build time with
//
//	-ldflags "-X github.com/ipsync/ipsync/internal/cli.Version=v1.2.3 -X github.com/ipsync/ipsync/internal/cli.Commit=<sha>"
//
// as the container image build does. Commit stays empty in a plain go
// build; the revision the go command stamps into the binary stands in.
var (
	Version = "dev"
	Commit  string
)

// versionText is what both `ipsync version` and `ipsync --version` print
// after the program's name.
func versionText() string {
	return fmt.Sprintf("%s (commit %s, plan format %d)", Version, commit(Commit, buildInfo()), planFormat)
}

// commit is the revision the binary was built from: the one set by
// -ldflags, else the one go build stamps from the work tree (marked
// -dirty when that had changes, since then no commit holds the source),
// else "unknown" (go run, -buildvcs=false, a build outside a checkout).
func commit(set string, info *debug.BuildInfo) string {
	if set != "" {
		return set
	}
	if info == nil {
		return "unknown"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	switch {
	case rev == "":
		return "unknown"
	case modified == "true":
		return rev + "-dirty"
	}
	return rev
}

// setVersionFlag gives root --version, printing the line `ipsync version`
// prints, rather than cobra's "ipsync version <v>". The flag is declared
// here so that cobra does not also take -v, which other tools spell
// --verbose.
func setVersionFlag(root *cobra.Command) {
	root.Version = versionText()
	root.SetVersionTemplate("{{.Name}} {{.Version}}\n")
	root.Flags().Bool("version", false, "print the version, the commit it was built from and the plan format")
}

func newVersion(e *env) *cobra.Command {
	return &cobra.Command{
		Use: "version",
		Example: `  ipsync version
  ipsync --version`,
		Short: "Print ipsync's version, the commit it was built from and the plan format it writes",
		Args:  usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(e.stdout, "ipsync %s\n", versionText())
			return err
		},
	}
}
