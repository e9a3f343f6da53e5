package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/cli/help"
)

// newHelpCommand replaces cobra's help command: `mcpoke help TOPIC` shows
// a page of the reference (internal/cli/help/TOPIC.md), `mcpoke help
// COMMAND` a command's usage as --help does, and `mcpoke help` lists the
// topics.
func newHelpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [TOPIC|COMMAND]",
		Short: "The reference, by topic (mcpoke help lists them), or a command's usage",
		Args:  cobra.MaximumNArgs(2),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var names []string
			for _, t := range help.Topics() {
				names = append(names, t.Name+"\t"+t.Title)
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if len(args) == 0 {
				fmt.Fprint(out, topicList())
				return nil
			}
			if t, ok := help.Lookup(args[0]); ok && len(args) == 1 {
				fmt.Fprint(out, t.Text())
				return nil
			}
			if c, _, err := root.Find(args); err == nil && c != root {
				return c.Help()
			}
			return usageError("no help topic or command %s\n%s", quote(strings.Join(args, " ")), topicList())
		},
	}
}

// topicList is what `mcpoke help` prints.
func topicList() string {
	var b strings.Builder
	b.WriteString("mcpoke help TOPIC shows a page of the reference:\n\n")
	width := 0
	topics := help.Topics()
	for _, t := range topics {
		width = max(width, len(t.Name))
	}
	for _, t := range topics {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, t.Name, t.Title)
	}
	b.WriteString("\nmcpoke help COMMAND (or mcpoke COMMAND --help) shows a command's flags and examples.\n")
	return b.String()
}
