// Package toolschema checks tool arguments against a tool's inputSchema
// before they are sent, so that bad input is caught with one clear line
// instead of a server error.
//
// Schemas come from servers and are untrusted: they are compiled with no
// loader, so a $ref can never read a local file or the network. JSON Schema
// draft 2020-12 is assumed unless $schema says otherwise (MCP 2025-11-25);
// draft-07, which most TypeScript servers emit, is honoured through $schema.
package toolschema

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// resourceURL names the schema inside the compiler; it is never fetched.
const resourceURL = "mem:///inputSchema.json"

// maxProblems is how many validation problems one error lists.
const maxProblems = 3

// Schema is a compiled inputSchema.
type Schema struct {
	compiled *jsonschema.Schema
}

// Compile compiles a tool's inputSchema. An error means the server sent a
// schema mcpoke cannot use; callers may go on without validation.
func Compile(schema []byte) (*Schema, error) {
	if err := CheckBounds(schema); err != nil {
		return nil, fmt.Errorf("inputSchema refused: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("inputSchema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(resourceURL, doc); err != nil {
		return nil, fmt.Errorf("inputSchema: %w", err)
	}
	compiled, err := c.Compile(resourceURL)
	if err != nil {
		return nil, fmt.Errorf("inputSchema is not a usable JSON Schema: %s", oneLine(err.Error()))
	}
	return &Schema{compiled: compiled}, nil
}

// Validate checks args, a JSON value, against the schema. The error lists
// the first few problems on one line, naming each argument.
func (s *Schema) Validate(args []byte) error {
	inst, err := Decode(args)
	if err != nil {
		return fmt.Errorf("arguments are not JSON: %w", err)
	}
	return s.ValidateValue(inst)
}

// Decode decodes JSON as ValidateValue takes it: numbers stay exact
// (json.Number). A server that checks the arguments of a tools/call and
// then reads them decodes its params once with it.
func Decode(b []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// ValidateValue is Validate for arguments already decoded by Decode.
func (s *Schema) ValidateValue(inst any) error {
	err := s.compiled.Validate(inst)
	var ve *jsonschema.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return err
	}
	var problems []string
	for _, leaf := range leaves(ve, nil) {
		problems = append(problems, describe(leaf))
	}
	if len(problems) > maxProblems {
		problems = append(problems[:maxProblems], fmt.Sprintf("and %d more", len(problems)-maxProblems))
	}
	return errors.New(strings.Join(problems, "; "))
}

var printer = message.NewPrinter(language.English)

// describe says what is wrong at one place: `argument "seconds": got
// string, want number`, or `arguments: missing property 'text'`.
func describe(e *jsonschema.ValidationError) string {
	where := "arguments"
	if len(e.InstanceLocation) > 0 {
		where = fmt.Sprintf("argument %q", strings.Join(e.InstanceLocation, "/"))
	}
	return where + ": " + e.ErrorKind.LocalizedString(printer)
}

// leaves returns the innermost errors, which name the actual problems;
// the outer ones only say "validation failed".
func leaves(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return append(out, e)
	}
	for _, c := range e.Causes {
		out = leaves(c, out)
	}
	return out
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// noLoader refuses every URL a schema refers to: a server's schema must
// not make mcpoke read files or reach the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("mcpoke does not load schemas referenced by URL (%s)", url)
}
