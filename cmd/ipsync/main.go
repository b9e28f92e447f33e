// Command ipsync keeps Nautobot in agreement with a static YAML spec and with
// the OpenStack Neutron of every site. See the README.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/ipsync/ipsync/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
