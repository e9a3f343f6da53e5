package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpoke/mcpoke/termtext"
)

// schemaPrinter renders validation messages.
var schemaPrinter = message.NewPrinter(language.English)

// compileSchema compiles a tool's inputSchema. Only the schema itself is
// read: a $ref to anything outside it fails to compile rather than
// reaching the network or the disk.
func compileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("inputSchema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020) // MCP 2025-11-25; $schema may say draft-07
	c.UseLoader(noLoader{})
	const url = "mcpoke:///inputSchema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// noLoader refuses every external reference.
type noLoader struct{}

// Load implements jsonschema.URLLoader.
func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema %s is not loaded", url)
}

// fieldError is one validation failure; Field is the top-level property
// it is about, or "" for the whole object.
type fieldError struct {
	Field   string
	Message string
}

// validateArgs checks args against schema and returns every failure.
func validateArgs(schema *jsonschema.Schema, args []byte) []fieldError {
	if schema == nil {
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return []fieldError{{Message: "not JSON: " + err.Error()}}
	}
	err = schema.Validate(inst)
	var ve *jsonschema.ValidationError
	if err == nil {
		return nil
	}
	if !errors.As(err, &ve) {
		return []fieldError{{Message: termtext.Line(err.Error())}}
	}
	var out []fieldError
	collectLeaves(ve, &out)
	return out
}

func collectLeaves(e *jsonschema.ValidationError, out *[]fieldError) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collectLeaves(c, out)
		}
		return
	}
	msg := termtext.Line(e.ErrorKind.LocalizedString(schemaPrinter))
	if req, ok := e.ErrorKind.(*kind.Required); ok && len(e.InstanceLocation) == 0 {
		for _, m := range req.Missing {
			*out = append(*out, fieldError{Field: m, Message: "required"})
		}
		return
	}
	field := ""
	if len(e.InstanceLocation) > 0 {
		field = e.InstanceLocation[0]
		if len(e.InstanceLocation) > 1 {
			msg = "at /" + termtext.Line(strings.Join(e.InstanceLocation[1:], "/")) + ": " + msg
		}
	}
	*out = append(*out, fieldError{Field: field, Message: msg})
}
