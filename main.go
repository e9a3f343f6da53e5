// Command mcpoke is a terminal client for the Model Context Protocol:
// call tools, cancel them, and see what really happens on the wire.
package main

import (
	"os"

	"github.com/mcpoke/mcpoke/internal/cli"
)

func main() { os.Exit(cli.Main()) }
