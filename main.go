// Command mcpoke is a terminal client for the Model Context Protocol:
// call tools, cancel them, and see what really happens on the wire.
package main

import (
	"os"

	"github.com/mcpoke/mcpoke/internal/cli"
)

func main() {
	ctx, interrupted := stopOnSignal()
	code := cli.Execute(ctx)
	if sig, ok := interrupted(); ok {
		code = 128 + sig
	}
	os.Exit(code)
}
