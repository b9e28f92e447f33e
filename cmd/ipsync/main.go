// Command ipsync keeps Nautobot in agreement with a static YAML spec and with
// the OpenStack Neutron of every site. See the README.
package main

import (
	"os"

	"github.com/ipsync/ipsync/internal/cli"
)

func main() {
	ctx, done := cli.Interrupts()
	code := cli.Main(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	done()
	os.Exit(code)
}
