package ui

import (
	"bytes"
	"encoding/json"

	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/internal/toolschema"
)

// compileSchema compiles a tool's inputSchema; a tool without one is sent
// unchecked. toolschema refuses every $ref outside the schema, so a
// server's schema never reaches the network or the disk.
func compileSchema(raw json.RawMessage) (*toolschema.Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	return toolschema.Compile(raw)
}

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
