package demo

import (
	"context"
	"encoding/json"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

const failSchema = `{
  "type": "object",
  "properties": {
    "mode": {"type": "string", "enum": ["tool-error", "rpc-error"], "default": "tool-error",
      "description": "tool-error: a result with isError true (the tool ran and failed); rpc-error: a JSON-RPC error response."}
  },
  "additionalProperties": false
}`

// failCode is the JSON-RPC error code of the rpc-error mode: the range
// -32000 to -32099 is left to implementations.
const failCode = -32000

type failArgs struct {
	Mode string `json:"mode"`
}

func failTool() *tool {
	return &tool{
		Tool: mcp.Tool{
			Name:        "fail",
			Title:       "Fail on purpose",
			Description: "Fails at once, either as a tool result with isError or as a JSON-RPC error.",
			InputSchema: json.RawMessage(failSchema),
		},
		run:       runFail,
		immediate: failNow,
	}
}

func runFail(_ context.Context, _ *server, _ *session.Incoming, raw json.RawMessage) (any, error) {
	args := failArgs{Mode: "tool-error"}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	return failWith(args.Mode)
}

// failNow is runFail for arguments flatCheck passed (mode, if there, is
// one of the enum's, written without escapes), its result's members
// appended to b.
func failNow(args, b []byte) ([]byte, error) {
	if string(session.Member(args, "mode")) == `"rpc-error"` {
		return b, rpcFailure()
	}
	return appendToolResultMembers(b, failedResult), nil
}

func failWith(mode string) (any, error) {
	if mode == "rpc-error" {
		return nil, rpcFailure()
	}
	return failedResult, nil
}

func rpcFailure() error {
	return &session.RPCError{Code: failCode, Message: "fail: a JSON-RPC error, on purpose",
		Data: json.RawMessage(`{"mode":"rpc-error"}`)}
}

// failedResult is fail's tool-error result; nothing changes it.
var failedResult = errorResult("fail: the tool failed, on purpose (isError result)")
