package demo

import (
	"context"
	"encoding/json"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// The conformance suite's fixtures of content kinds (an image, audio, an
// embedded resource and all of them at once), its JSON Schema 2020-12
// tool, and the diagnostic tools of its stateless scenario. Each is what
// the suite's scenario asks for, word for word where it says the words.

// silenceWAV is eight samples of silence at 8 kHz, 8-bit mono: the
// smallest WAV a player opens.
const silenceWAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="

// jsonSchema2020Tool is the suite's input schema of 2020-12 features:
// $schema, $defs with an $anchor, $ref, allOf/anyOf and if/then/else.
const jsonSchema2020Tool = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
	"$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
	"properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
		"contactMethod": {"type": "string", "enum": ["phone", "email"]}, "phone": {"type": "string"}, "email": {"type": "string"}},
	"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
	"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
	"then": {"required": ["phone"]}, "else": {"required": ["email"]},
	"additionalProperties": false}`

// content is one item of a tool result's content, of any kind.
type content = map[string]any

func imageContent() content {
	return content{"type": "image", "data": logoPNG, "mimeType": "image/png"}
}

func embedded(uri, mimeType, text string) content {
	return content{"type": "resource", "resource": textContents{uri, mimeType, text}}
}

// contentResult is a CallToolResult of the contents given.
func contentResult(items ...content) any { return map[string]any{"content": items} }

// conformanceContentTools are the fixtures of content kinds and schema.
func conformanceContentTools() []*tool {
	fixed := func(name, description string, result any) *tool {
		return &tool{Tool: mcp.Tool{Name: name, Description: description, InputSchema: json.RawMessage(noArgsSchema)},
			run: func(context.Context, *server, *session.Incoming, json.RawMessage) (any, error) { return result, nil }}
	}
	return []*tool{
		fixed("test_image_content", "Conformance fixture: an image (the demo's 8x8 PNG logo).", contentResult(imageContent())),
		fixed("test_audio_content", "Conformance fixture: audio (a WAV of eight samples of silence).",
			contentResult(content{"type": "audio", "data": silenceWAV, "mimeType": "audio/wav"})),
		fixed("test_embedded_resource", "Conformance fixture: an embedded text resource.",
			contentResult(embedded("test://embedded-resource", "text/plain", "This is an embedded resource content."))),
		fixed("test_multiple_content_types", "Conformance fixture: text, an image and an embedded JSON resource.",
			contentResult(content{"type": "text", "text": "Multiple content types test:"}, imageContent(),
				embedded("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`))),
		{Tool: mcp.Tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features",
			InputSchema: json.RawMessage(jsonSchema2020Tool)},
			run: func(_ context.Context, _ *server, _ *session.Incoming, args json.RawMessage) (any, error) {
				return textResult("arguments valid under the 2020-12 schema: " + string(args)), nil
			}},
		{Tool: mcp.Tool{Name: "test_missing_capability", Description: "Conformance fixture: needs the client's sampling " +
			"capability, and says -32021 (MissingRequiredClientCapability) to a client that did not declare it.",
			InputSchema: json.RawMessage(noArgsSchema)}, run: runMissingCapability},
	}
}

// runMissingCapability refuses a client that did not declare sampling,
// in either era: by its initialize, or by its request's _meta.
func runMissingCapability(_ context.Context, srv *server, in *session.Incoming, _ json.RawMessage) (any, error) {
	declared := srv.clientFeatures().Sampling
	if meta := mcp.ReadRequestMeta(in.Params); meta.Version != "" {
		declared = mcp.ParseClientCapabilities(meta.Capabilities).Sampling
	}
	if !declared {
		return nil, missingCapability("sampling", "test_missing_capability samples the client's model")
	}
	return textResult("the client declared sampling"), nil
}

// missingCapability is MissingRequiredClientCapability (-32021) naming the
// capability the client did not declare, as a ClientCapabilities object.
func missingCapability(capability, why string) *session.RPCError {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{capability: map[string]any{}}})
	return &session.RPCError{Code: session.CodeMissingClientCapability,
		Message: why + ": declare " + capability + " in the client's capabilities", Data: data}
}
