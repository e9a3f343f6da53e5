package ui

import (
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/internal/toolschema"
)

// validateArgs checks args against schema and returns every failure with
// its message sanitized for display; Field stays raw, to match the form's
// field names, and is sanitized where it is shown.
func validateArgs(schema *toolschema.Schema, args []byte) []toolschema.Problem {
	if schema == nil {
		return nil
	}
	problems := schema.Problems(args)
	for i := range problems {
		problems[i].Message = termtext.Line(problems[i].Message)
	}
	return problems
}
