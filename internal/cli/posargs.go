package cli

import "github.com/spf13/cobra"

// Every command takes the server command after --: what comes before it
// is the command's own positional arguments, checked here.

// toolArgCount is how many arguments come before --.
func toolArgCount(cmd *cobra.Command, args []string) int {
	if at := cmd.ArgsLenAtDash(); at >= 0 {
		return at
	}
	return len(args)
}

// noArgsBeforeDash refuses any argument before -- for command name.
func noArgsBeforeDash(name string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if n := toolArgCount(cmd, args); n > 0 {
			return usageError("unexpected argument %s: put the server command after --, e.g. mcpoke %s -- node server.js", quote(args[0]), name)
		}
		return nil
	}
}

// oneArgBeforeDash wants exactly one argument before -- for command
// name: a what (such as "TOOL name"), written as placeholder in the
// example, which mcpoke list (such as "tools") lists.
func oneArgBeforeDash(name, what, placeholder, list string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch toolArgCount(cmd, args) {
		case 1:
			return nil
		case 0:
			return usageError("%s needs a %s; run mcpoke %s to list them", name, what, list)
		}
		return usageError("unexpected argument %s: put the server command after --, e.g. mcpoke %s %s -- node server.js", quote(args[1]), name, placeholder)
	}
}
