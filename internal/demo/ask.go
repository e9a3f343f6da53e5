package demo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

const askSchema = `{
  "type": "object",
  "properties": {
    "kind": {"type": "string", "enum": ["sampling", "elicitation", "url"], "default": "elicitation",
      "description": "What to ask the client: sampling (a model's reply), elicitation (a form) or url (open a link)."},
    "cancel_after": {"type": "number", "minimum": 0, "maximum": 3600, "default": 0,
      "description": "Give up after this many seconds: cancel the request with notifications/cancelled (0: wait for the answer)."},
    "message": {"type": "string", "description": "What to say; a fitting default when empty."}
  },
  "additionalProperties": false
}`

type askArgs struct {
	Kind        string  `json:"kind"`
	CancelAfter float64 `json:"cancel_after"`
	Message     string  `json:"message"`
}

// askForm is the form an elicitation asks for: one field of each kind,
// most with defaults, so that a client's SEP-1034 defaults show.
const askForm = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "title": "Name", "description": "What to call you", "default": "Ada", "minLength": 1},
    "colour": {"type": "string", "title": "Colour", "description": "A favourite colour", "enum": ["red", "green", "blue"], "default": "green"},
    "age": {"type": "integer", "title": "Age", "description": "In years", "minimum": 0, "maximum": 150},
    "subscribe": {"type": "boolean", "title": "Subscribe", "description": "Send news", "default": false}
  },
  "required": ["name"]
}`

// completeAfter is how long after an accepted url elicitation the demo
// says the out-of-band interaction is done.
const completeAfter = time.Second

// settleGrace is the demo session's settle window: how long it watches
// for an answer after it cancelled its own request (a client must send
// none) before the request is cancelled for good.
const settleGrace = time.Second

func askTool() *tool {
	return &tool{
		Tool: mcp.Tool{
			Name:  "ask",
			Title: "Ask the client, and maybe give up",
			Description: "Sends the client a request of its own: sampling/createMessage, elicitation/create " +
				"(a form) or a url elicitation, and answers with what the client said. With cancel_after it " +
				"cancels that request itself after so many seconds, as a server that times out does, and " +
				"reports whether the client answered anyway (it must not). In protocol 2026-07-28 it sends no " +
				"request: it answers input_required with the question and completes when the client retries " +
				"with its answer (multi round-trip requests); cancel_after does not apply there.",
			InputSchema: json.RawMessage(askSchema),
		},
		run: runAsk,
	}
}

func runAsk(ctx context.Context, srv *server, in *session.Incoming, raw json.RawMessage) (any, error) {
	args := askArgs{Kind: "elicitation"}
	if err := decodeArgs(raw, &args); err != nil {
		return nil, err
	}
	if mcp.ReadRequestMeta(in.Params).Version != "" {
		return runAskModern(srv, in, args)
	}
	client := srv.clientFeatures()
	method, params, missing := askRequest(args, client)
	if missing != "" {
		return errorResult("the client did not declare " + missing + ", so the demo server may not ask for it " +
			"(mcpoke declares it in the UI, and headless with --sample or --elicit)"), nil
	}
	s := in.Session()
	c, err := s.Call(ctx, method, params, session.CallOptions{NoProgressToken: true})
	if err != nil {
		return nil, err
	}
	srv.log.Info("asked the client", "id", in.ID.String(), "method", method, "askId", c.ID().String())
	if args.CancelAfter > 0 {
		d := seconds(args.CancelAfter)
		reason := fmt.Sprintf("the demo server gave up after %s (cancel_after)", d)
		t := time.AfterFunc(d, func() { _ = s.Request(c.Ref()).Cancel(reason) })
		defer t.Stop()
	}
	res, err := c.Wait(ctx)
	if ctx.Err() != nil {
		return nil, ctx.Err() // the call itself was cancelled, and with it our request
	}
	if errors.Is(err, session.ErrCancelled) {
		return textResult(gaveUp(s, c)), nil
	}
	if err != nil {
		return textResult(fmt.Sprintf("the client answered %s with an error: %v", method, err)), nil
	}
	if args.Kind == "url" {
		srv.completeLater(s, params)
	}
	return textResult(fmt.Sprintf("the client answered %s: %s", method, res)), nil
}

// askRequest builds what to ask, or names the capability the client
// lacks for it.
func askRequest(args askArgs, client mcp.ClientFeatures) (method string, params any, missing string) {
	switch args.Kind {
	case "sampling":
		if !client.Sampling {
			return "", nil, "sampling"
		}
		msg := or(args.Message, "In one sentence: why should a client be able to cancel a request?")
		return "sampling/createMessage", map[string]any{
			"messages":         []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": msg}}},
			"systemPrompt":     "You are the mcpoke demo server's model. Answer briefly.",
			"modelPreferences": map[string]any{"hints": []any{map[string]any{"name": "claude"}}, "intelligencePriority": 0.5, "speedPriority": 0.8},
			"maxTokens":        200,
		}, ""
	case "url":
		if !client.ElicitURL {
			return "", nil, "url mode elicitation"
		}
		id := newElicitationID()
		return "elicitation/create", map[string]any{
			"mode":          "url",
			"message":       or(args.Message, "Open this page to link your (pretend) account."),
			"url":           "https://example.com/mcpoke-demo/connect?elicitation=" + id,
			"elicitationId": id,
		}, ""
	}
	if !client.ElicitForm {
		return "", nil, "form mode elicitation"
	}
	return "elicitation/create", map[string]any{
		"mode":            "form",
		"message":         or(args.Message, "The demo server would like to know a little about you."),
		"requestedSchema": json.RawMessage(askForm),
	}, ""
}

// gaveUp says what happened after the demo cancelled its own request:
// whether the client answered anyway within the settle window.
func gaveUp(s *session.Session, c *session.Call) string {
	info, _ := s.Request(c.Ref()).Info()
	what := fmt.Sprintf("the demo server cancelled its %s after %s: %q.", info.Method,
		info.CancelAt.Sub(info.Started).Round(time.Millisecond), info.CancelReason)
	late := info.LateKinds[session.LateResponse] + info.LateKinds[session.LateError]
	if late == 0 {
		return what + fmt.Sprintf(" The client sent no answer after it (watched %s), as the spec asks.", settleGrace)
	}
	first := info.Late[0]
	return what + fmt.Sprintf(" The client answered anyway, %s after the cancel: a late %s, which it must not send.",
		first.AfterCancel.Round(time.Millisecond), first.Kind)
}

// completeLater sends notifications/elicitation/complete for an accepted
// url elicitation, as if the person had finished on the page.
func (srv *server) completeLater(s *session.Session, params any) {
	id, _ := params.(map[string]any)["elicitationId"].(string)
	time.AfterFunc(completeAfter, func() {
		if err := s.Notify("notifications/elicitation/complete", map[string]string{"elicitationId": id}); err == nil {
			srv.log.Info("url elicitation completed", "elicitationId", id)
		}
	})
}

func newElicitationID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
