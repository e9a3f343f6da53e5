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

// echoNow is runEcho for arguments flatCheck passed (text is a string,
// under its own key), its result's members appended to b. Text that
// json.Marshal writes as it came is copied, not decoded and encoded.
func echoNow(args, b []byte) ([]byte, error) {
	text := session.Member(args, "text")
	if len(text) < 2 || !plainJSON(text[1:len(text)-1]) {
		return appendToolResultMembers(b, textResult(decodeJSONString(text))), nil
	}
	b = append(b, `"content":[{"type":"text","text":`...)
	b = append(b, text...)
	return append(b, "}]"...), nil
}

func runEcho(_ context.Context, _ *server, _ *session.Incoming, raw json.RawMessage) (any, error) {
	var args echoArgs
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	return textResult(args.Text), nil
}
