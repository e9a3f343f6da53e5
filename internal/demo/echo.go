package demo

import (
	"context"
	"encoding/json"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

const echoSchema = `{
  "type": "object",
  "properties": {
    "text": {"type": "string", "description": "The text to send back.", "x-mcp-header": "Text"}
  },
  "required": ["text"],
  "additionalProperties": false
}`

type echoArgs struct {
	Text string `json:"text"`
}

func echoTool() *tool {
	return &tool{
		Tool: mcp.Tool{
			Name:        "echo",
			Title:       "Echo",
			Description: "Answers at once with the text it was given. Over Streamable HTTP in protocol 2026-07-28 the text also travels in the Mcp-Param-Text header.",
			InputSchema: json.RawMessage(echoSchema),
		},
		run:       runEcho,
		immediate: echoNow,
	}
}

// echoNow is runEcho for arguments flatCheck passed: text is a string,
// under its own key.
func echoNow(args []byte) (toolResult, error) {
	return textResult(decodeJSONString(session.Member(args, "text"))), nil
}

func runEcho(_ context.Context, _ *server, _ *session.Incoming, raw json.RawMessage) (any, error) {
	var args echoArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	return textResult(args.Text), nil
}
