package cli

import (
	"github.com/spf13/cobra"

	"github.com/mcpoke/mcpoke/internal/connect"
)

// onServer is the RunE of a command that works on one server: check,
// when not nil, vets the command's own flags; then the server is
// resolved from the global flags and the command after --, and run
// works on it.
func onServer(g *globalFlags, check func() error, run func(cmd *cobra.Command, args []string, spec connect.Spec) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if check != nil {
			if err := check(); err != nil {
				return err
			}
		}
		spec, err := resolveSpec(g, dashArgs(cmd, args))
		if err != nil {
			return err
		}
		return run(cmd, args, spec)
	}
}
