package nautobot

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ipsync/ipsync/internal/sot"
)

// Config is how to reach one Nautobot and how ipsync marks what it owns
// there.
type Config struct {
	sot.Settings
	// APIVersion is pinned in every request's Accept header. Default:
	// the server's own major.minor, read when the client connects. A pin
	// must be at least 2.2, where prefixes have several locations, and
	// no newer than the server.
	APIVersion string
}

func (c Config) withDefaults() (Config, error) {
	errs := c.Settings.WithDefaults("nautobot")
	if c.APIVersion != "" && !versionAtLeast(c.APIVersion, 2, 2) {
		errs = append(errs, fmt.Errorf("nautobot api version %q: want major.minor, at least 2.2", c.APIVersion))
	}
	return c, errors.Join(errs...)
}

// versionAtLeast reports whether v ("major.minor") is at least major.minor.
func versionAtLeast(v string, major, minor int) bool {
	a, b, ok := strings.Cut(v, ".")
	ma, err1 := strconv.Atoi(a)
	mi, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return false
	}
	return ma > major || ma == major && mi >= minor
}
