package demo

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// The demo's resources, each there to show one thing: plain text, a read
// slow enough to cancel, a resource that changes under a subscription,
// and binary content.
const (
	readmeURI = "demo://readme"
	slowURI   = "demo://slow"
	tickerURI = "demo://ticker"
	logoURI   = "demo://logo.png"
)

// resourcePageSize is small so that resources/list pages, as a real
// server's long list would.
const resourcePageSize = 3

// CodeResourceNotFound is the error the resources spec names for an
// unknown URI; protocol 2026-07-28 made it -32602 (Invalid Params).
const CodeResourceNotFound = -32002

// resourceNotFound is the error for an unknown URI, in the era of in.
func resourceNotFound(in *session.Incoming, uri string) *session.RPCError {
	code := int64(CodeResourceNotFound)
	if mcp.ReadRequestMeta(in.Params).Version != "" {
		code = session.CodeInvalidParams
	}
	return &session.RPCError{Code: code, Message: "Resource not found", Data: json.RawMessage(fmt.Sprintf(`{"uri":%q}`, uri))}
}

// logoPNG is an 8×8 striped PNG: binary content to show as type and size
// and to save to a file.
const logoPNG = "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAGElEQVR4nGP4H8CAFTFoaJzAirArH2gdAGvaTOHJd7tpAAAAAElFTkSuQmCC"

const readmeText = `# mcpoke demo server

Every request here is one to poke at:

- demo://slow takes 5 seconds to read: cancel it.
- demo://ticker changes every few seconds: subscribe to it.
- demo://logo.png is binary: save it to a file.
- demo://greeting/{lang}/{name} is a template; its variables complete.
- The review prompt takes arguments, one of which completes.
`

// slowReadSteps is how long demo://slow takes, in seconds, one progress
// notification a second.
const slowReadSteps = 5

// demoResources are the entries of resources/list, in order.
func demoResources() []mcp.Resource {
	size := func(n int) *int64 { v := int64(n); return &v }
	logo, _ := base64.StdEncoding.DecodeString(logoPNG)
	return []mcp.Resource{
		{URI: readmeURI, Name: "readme", Title: "About the demo server", MimeType: "text/markdown",
			Description: "What each demo resource and prompt is for.", Size: size(len(readmeText))},
		{URI: slowURI, Name: "slow", Title: "Slow to read",
			Description: "Takes 5 seconds to read, with progress; honours cancellation.", MimeType: "text/plain"},
		{URI: tickerURI, Name: "ticker", Title: "Changes every few seconds",
			Description: "A counter; subscribers get notifications/resources/updated at each tick.", MimeType: "text/plain"},
		{URI: logoURI, Name: "logo", Title: "A tiny PNG", Description: "Binary content (8×8 pixels).",
			MimeType: "image/png", Size: size(len(logo))},
	}
}

// greetingTemplate is the demo's resource template; both variables
// complete (see complete).
var greetingTemplate = mcp.ResourceTemplate{
	URITemplate: "demo://greeting/{lang}/{name}",
	Name:        "greeting",
	Title:       "A greeting",
	Description: "Greets name in lang (en, fr, de, es); both complete.",
	MimeType:    "text/plain",
}

var greetings = map[string]string{"en": "Hello, %s!", "fr": "Bonjour, %s !", "de": "Hallo, %s!", "es": "¡Hola, %s!"}

// listResources answers resources/list, resourcePageSize entries a page.
func (srv *server) listResources(_ context.Context, in *session.Incoming) (any, error) {
	all := srv.resources()
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(in.Params, &p)
	from := 0
	if p.Cursor != "" {
		n, err := strconv.Atoi(p.Cursor)
		if err != nil || n <= 0 || n >= len(all) {
			return nil, invalidParams("resources/list: invalid cursor %q", p.Cursor)
		}
		from = n
	}
	to := min(from+resourcePageSize, len(all))
	res := map[string]any{"resources": all[from:to]}
	if to < len(all) {
		res["nextCursor"] = strconv.Itoa(to)
	}
	return res, nil
}

// listTemplates answers resources/templates/list.
func (srv *server) listTemplates(context.Context, *session.Incoming) (any, error) {
	list := []mcp.ResourceTemplate{greetingTemplate}
	if srv.fixtures {
		list = append(list, fixtureTemplate)
	}
	return map[string]any{"resourceTemplates": list}, nil
}

// textContents is a TextResourceContents.
type textContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Text     string `json:"text"`
}

// blobContents is a BlobResourceContents.
type blobContents struct {
	URI      string `json:"uri"`
	MimeType string `json:"mimeType,omitempty"`
	Blob     string `json:"blob"`
}

func contents(c any) map[string]any { return map[string]any{"contents": []any{c}} }

// readResource answers resources/read; an unknown URI is resourceNotFound.
func (srv *server) readResource(ctx context.Context, in *session.Incoming) (any, error) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal(in.Params, &p); err != nil || p.URI == "" {
		return nil, invalidParams("resources/read: params must be an object with a uri")
	}
	srv.logFor(in, "info", "resources", "read "+p.URI)
	switch p.URI {
	case readmeURI:
		return contents(textContents{p.URI, "text/markdown", readmeText}), nil
	case slowURI:
		return srv.readSlow(ctx, in, p.URI)
	case tickerURI:
		return contents(textContents{p.URI, "text/plain", fmt.Sprintf("tick %d", srv.tick())}), nil
	case logoURI:
		return contents(blobContents{p.URI, "image/png", logoPNG}), nil
	}
	if res, ok := srv.readFixture(p.URI); ok {
		return res, nil
	}
	if vars, ok := mcp.MatchTemplate(greetingTemplate.URITemplate, p.URI); ok {
		format, known := greetings[vars["lang"]]
		if !known {
			return nil, invalidParams("no greeting in %q; try en, fr, de or es", vars["lang"])
		}
		return contents(textContents{p.URI, "text/plain", fmt.Sprintf(format, vars["name"])}), nil
	}
	return nil, resourceNotFound(in, p.URI)
}

// readSlow takes slowReadSteps seconds, with progress when asked for it,
// and stops at once when cancelled.
func (srv *server) readSlow(ctx context.Context, in *session.Incoming, uri string) (any, error) {
	t := time.NewTicker(srv.slowStep)
	defer t.Stop()
	for i := 1; i <= slowReadSteps; i++ {
		select {
		case <-ctx.Done():
			srv.log.Info("slow read stopped", "id", in.ID.String(), "stepsDone", i-1)
			return nil, ctx.Err()
		case <-t.C:
		}
		if err := in.NotifyProgress(float64(i), slowReadSteps, fmt.Sprintf("read %d of %d", i, slowReadSteps)); err != nil {
			return nil, err
		}
	}
	return contents(textContents{uri, "text/plain", fmt.Sprintf("read in %d slow steps", slowReadSteps)}), nil
}
