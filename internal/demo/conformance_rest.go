package demo

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// The resources, template, prompts and logging tool the conformance suite
// reads by name, added with Options.ConformanceTools. Their contents are
// what the suite's scenarios ask for.

// resources are the demo's resources and, with the fixtures, the suite's.
func (srv *server) resources() []mcp.Resource {
	all := demoResources()
	if srv.fixtures {
		all = append(all,
			mcp.Resource{URI: "test://static-text", Name: "static-text", Description: "Conformance fixture: text.", MimeType: "text/plain"},
			mcp.Resource{URI: "test://static-binary", Name: "static-binary", Description: "Conformance fixture: a PNG.", MimeType: "image/png"},
			mcp.Resource{URI: "test://watched-resource", Name: "watched-resource", Description: "Conformance fixture: subscribe to it.", MimeType: "text/plain"})
	}
	return all
}

// fixtureTemplate is the suite's template.
var fixtureTemplate = mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template-data",
	Description: "Conformance fixture: substitutes id.", MimeType: "application/json"}

// readFixture reads a fixture resource, when uri names one.
func (srv *server) readFixture(uri string) (any, bool) {
	if !srv.fixtures {
		return nil, false
	}
	switch uri {
	case "test://static-text":
		return contents(textContents{uri, "text/plain", "This is the content of the static text resource."}), true
	case "test://static-binary":
		return contents(blobContents{uri, "image/png", logoPNG}), true
	case "test://watched-resource":
		return contents(textContents{uri, "text/plain", "watched"}), true
	}
	if vars, ok := mcp.MatchTemplate(fixtureTemplate.URITemplate, uri); ok {
		data, _ := json.Marshal(map[string]any{"id": vars["id"], "templateTest": true, "data": "Data for ID: " + vars["id"]})
		return contents(textContents{uri, "application/json", string(data)}), true
	}
	return nil, false
}

// prompts are the demo's prompts and, with the fixtures, the suite's.
func (srv *server) prompts() []mcp.Prompt {
	all := demoPrompts()
	if srv.fixtures {
		all = append(all,
			mcp.Prompt{Name: "test_simple_prompt", Description: "Conformance fixture: no arguments."},
			mcp.Prompt{Name: "test_prompt_with_arguments", Description: "Conformance fixture: two arguments.",
				Arguments: []mcp.PromptArgument{{Name: "arg1", Description: "First test argument", Required: true},
					{Name: "arg2", Description: "Second test argument", Required: true}}},
			mcp.Prompt{Name: "test_prompt_with_embedded_resource", Description: "Conformance fixture: an embedded resource.",
				Arguments: []mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
			mcp.Prompt{Name: "test_prompt_with_image", Description: "Conformance fixture: an image."},
			mcp.Prompt{Name: mrtrPromptName, Description: "Conformance fixture (2026-07-28, input_required): " + mrtrPrompt().description + "."})
	}
	return all
}

func promptNames(prompts []mcp.Prompt) string {
	names := make([]string, len(prompts))
	for i, p := range prompts {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// fixturePrompt is what the suite's prompts answer.
func fixturePrompt(name string, args map[string]string) any {
	user := func(content any) map[string]any { return map[string]any{"role": "user", "content": content} }
	text := func(s string) any { return textContent{"text", s} }
	var messages []any
	switch name {
	case "test_simple_prompt":
		messages = []any{user(text("This is a simple prompt for testing."))}
	case "test_prompt_with_arguments":
		messages = []any{user(text("Prompt with arguments: arg1='" + args["arg1"] + "', arg2='" + args["arg2"] + "'"))}
	case "test_prompt_with_embedded_resource":
		messages = []any{
			user(map[string]any{"type": "resource", "resource": textContents{args["resourceUri"], "text/plain", "Embedded resource content for testing."}}),
			user(text("Please process the embedded resource above.")),
		}
	case "test_prompt_with_image":
		messages = []any{
			user(map[string]any{"type": "image", "data": logoPNG, "mimeType": "image/png"}),
			user(text("Please analyze the image above.")),
		}
	}
	return map[string]any{"messages": messages}
}

// loggingFixture is the suite's tool that logs three times while it runs,
// by the level of the request's era (logFor): in 2026-07-28, only when
// the request's _meta names one.
func loggingFixture(name string) *tool {
	return &tool{Tool: mcp.Tool{Name: name, Description: "Conformance fixture: logs three times at info, 50ms apart.",
		InputSchema: json.RawMessage(noArgsSchema)},
		run: func(ctx context.Context, srv *server, in *session.Incoming, _ json.RawMessage) (any, error) {
			for i, text := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					select {
					case <-ctx.Done():
						return nil, ctx.Err()
					case <-time.After(50 * time.Millisecond):
					}
				}
				srv.logFor(in, "info", name, text)
			}
			return textResult("logged three messages"), nil
		}}
}
