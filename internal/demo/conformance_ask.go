package demo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// The conformance suite's fixtures that ask the client: sampling, a form,
// a form of defaults (SEP-1034) and one of every enum form (SEP-1330).
// Like ask, each asks only what the client declared.

const (
	samplingFixtureSchema = `{"type": "object", "properties": {"prompt": {"type": "string", "description": "The prompt to send to the LLM"}},
		"required": ["prompt"], "additionalProperties": false}`
	elicitFixtureSchema = `{"type": "object", "properties": {"message": {"type": "string", "description": "The message to show the user"}},
		"required": ["message"], "additionalProperties": false}`

	elicitFixtureForm = `{"type": "object", "properties": {
		"username": {"type": "string", "description": "User's response"},
		"email": {"type": "string", "description": "User's email address"}},
		"required": ["username", "email"]}`
	sep1034Form = `{"type": "object", "properties": {
		"name": {"type": "string", "default": "John Doe"},
		"age": {"type": "integer", "default": 30},
		"score": {"type": "number", "default": 95.5},
		"status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
		"verified": {"type": "boolean", "default": true}}}`
	sep1330Form = `{"type": "object", "properties": {
		"untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
		"titledSingle": {"type": "string", "oneOf": [{"const": "value1", "title": "First Option"},
			{"const": "value2", "title": "Second Option"}, {"const": "value3", "title": "Third Option"}]},
		"legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
		"untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
		"titledMulti": {"type": "array", "items": {"anyOf": [{"const": "value1", "title": "First Choice"},
			{"const": "value2", "title": "Second Choice"}, {"const": "value3", "title": "Third Choice"}]}}}}`
)

func conformanceAskTools() []*tool {
	fixture := func(name, description, schema string, run func(context.Context, *server, *session.Incoming, json.RawMessage) (any, error)) *tool {
		return &tool{Tool: mcp.Tool{Name: name, Description: description, InputSchema: json.RawMessage(schema)}, run: run}
	}
	form := func(schema string) func(context.Context, *server, *session.Incoming, json.RawMessage) (any, error) {
		return func(ctx context.Context, srv *server, in *session.Incoming, _ json.RawMessage) (any, error) {
			return elicitFixture(ctx, srv, in, "Please fill in the form", schema, "Elicitation completed")
		}
	}
	return []*tool{
		fixture("test_sampling", "Conformance fixture: asks the client for a sampling of prompt.", samplingFixtureSchema, runSamplingFixture),
		fixture("test_elicitation", "Conformance fixture: asks the client for a username and an email.", elicitFixtureSchema,
			func(ctx context.Context, srv *server, in *session.Incoming, raw json.RawMessage) (any, error) {
				var a struct {
					Message string `json:"message"`
				}
				if err := decodeArgs(raw, &a); err != nil {
					return nil, err
				}
				return elicitFixture(ctx, srv, in, a.Message, elicitFixtureForm, "User response")
			}),
		fixture("test_elicitation_sep1034_defaults", "Conformance fixture: a form with a default of every primitive type (SEP-1034).",
			noArgsSchema, form(sep1034Form)),
		fixture("test_elicitation_sep1330_enums", "Conformance fixture: a form with every enum form (SEP-1330).",
			noArgsSchema, form(sep1330Form)),
	}
}

func runSamplingFixture(ctx context.Context, srv *server, in *session.Incoming, raw json.RawMessage) (any, error) {
	var a struct {
		Prompt string `json:"prompt"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if !srv.clientFeatures().Sampling {
		return errorResult("the client did not declare sampling"), nil
	}
	res, err := in.Session().Do(ctx, "sampling/createMessage", map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": a.Prompt}}},
		"maxTokens": 100,
	}, session.CallOptions{NoProgressToken: true})
	if err != nil {
		return errorResult("sampling failed: " + err.Error()), nil
	}
	var r struct {
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(res, &r)
	return textResult("LLM response: " + r.Content.Text), nil
}

// elicitFixture asks for schema and says what came back.
func elicitFixture(ctx context.Context, srv *server, in *session.Incoming, message, schema, said string) (any, error) {
	if !srv.clientFeatures().ElicitForm {
		return errorResult("the client did not declare elicitation"), nil
	}
	res, err := in.Session().Do(ctx, "elicitation/create", map[string]any{
		"message": message, "requestedSchema": json.RawMessage(schema),
	}, session.CallOptions{NoProgressToken: true})
	if err != nil {
		return errorResult("elicitation failed: " + err.Error()), nil
	}
	var r struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(res, &r)
	return textResult(fmt.Sprintf("%s: action=%s, content=%s", said, r.Action, r.Content)), nil
}
