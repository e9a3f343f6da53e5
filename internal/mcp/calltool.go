package mcp

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpoke/mcpoke/session"
)

// StartToolCall sends tools/call for t with args and returns its handle:
// the params, and in the modern era over Streamable HTTP the Mcp-Param
// headers its x-mcp-header marks ask for. args must be a JSON object.
func StartToolCall(ctx context.Context, s *session.Session, t Tool, args json.RawMessage, opts session.CallOptions) (*session.Call, error) {
	params, err := CallToolParams(t.Name, args)
	if err != nil {
		return nil, err
	}
	return StartToolCallParams(ctx, s, t, params, opts)
}

// StartToolCallParams is StartToolCall with the params already built (a
// task-augmented call's, say): the Mcp-Param headers are read from them.
func StartToolCallParams(ctx context.Context, s *session.Session, t Tool, params json.RawMessage, opts session.CallOptions) (*session.Call, error) {
	if s.Era2026() {
		var err error
		if opts.ParamHeaders, err = CallParamHeaders(t, params); err != nil {
			return nil, err
		}
	}
	return s.Call(ctx, "tools/call", params, opts)
}

// HeaderMismatch reports whether err is a HeaderMismatch (-32020): the
// server read the HTTP headers differently from the body. For tools/call
// the spec's answer is to list the tools again (a tool's x-mcp-header
// marks may have changed) and retry once.
func HeaderMismatch(err error) bool {
	var rpcErr *session.RPCError
	return errors.As(err, &rpcErr) && rpcErr.Code == session.CodeHeaderMismatch
}

// RetryAfterHeaderMismatch lists the tools again and re-sends the call of
// the tool called name with args, under a new id: what a client does
// once when a call fails with HeaderMismatch. It fails when the tool is
// gone or rejected.
func RetryAfterHeaderMismatch(ctx context.Context, s *session.Session, name string, args json.RawMessage,
	list ListOptions, opts session.CallOptions) (*session.Call, ToolList, error) {
	tools, err := ListTools(ctx, s, list)
	if err != nil {
		return nil, tools, err
	}
	for _, t := range tools.Tools {
		if t.Name == name {
			c, err := StartToolCall(ctx, s, t, args, opts)
			return c, tools, err
		}
	}
	for _, r := range tools.Rejected {
		if r.Name == name {
			return nil, tools, errors.New("tools/list again: the tool " + name + " is now rejected: " + r.Why.Error())
		}
	}
	return nil, tools, errors.New("tools/list again: the server no longer lists the tool " + name)
}

// CallParamHeaders is ParamHeaders for tools/call params already built
// (name and arguments), as a caller that re-sends them needs.
func CallParamHeaders(t Tool, params json.RawMessage) (map[string]string, error) {
	var p struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(params, &p); err != nil || len(p.Arguments) == 0 {
		return nil, err
	}
	return ParamHeaders(t, p.Arguments)
}
