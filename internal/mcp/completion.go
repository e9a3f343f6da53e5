package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
)

// CompletionRef is what completion/complete completes an argument of: a
// prompt by name, or a resource template by its URI template.
type CompletionRef struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// PromptRef refers to the prompt name.
func PromptRef(name string) CompletionRef { return CompletionRef{Type: "ref/prompt", Name: name} }

// TemplateRef refers to the resource template uriTemplate.
func TemplateRef(uriTemplate string) CompletionRef {
	return CompletionRef{Type: "ref/resource", URI: uriTemplate}
}

// CompleteParams are the params of completion/complete: the argument
// being typed and its value so far, and the values of the others already
// filled in (context.arguments), as the spec asks for arguments that
// depend on each other.
func CompleteParams(ref CompletionRef, name, value string, others map[string]string) json.RawMessage {
	type argument struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	type context struct {
		Arguments map[string]string `json:"arguments"`
	}
	var ctx *context
	if len(others) > 0 {
		ctx = &context{others}
	}
	p, _ := json.Marshal(struct {
		Ref      CompletionRef `json:"ref"`
		Argument argument      `json:"argument"`
		Context  *context      `json:"context,omitempty"`
	}{ref, argument{name, value}, ctx})
	return p
}

// MaxCompletionValues is how many values a completion may hold (spec:
// "Maximum 100 items per response").
const MaxCompletionValues = 100

// Completion is a completion/complete result.
type Completion struct {
	Values []string `json:"values"`
	// Total is how many matches there are in all; nil when not given.
	Total   *int `json:"total,omitempty"`
	HasMore bool `json:"hasMore,omitempty"`
	// TooMany: the server sent more than MaxCompletionValues values;
	// Values holds the first MaxCompletionValues.
	TooMany bool `json:"-"`
}

// ReadCompleteResult reads a completion/complete result.
func ReadCompleteResult(raw json.RawMessage) (Completion, error) {
	var r struct {
		Completion *Completion `json:"completion"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return Completion{}, fmt.Errorf("completion/complete result: %w", err)
	}
	if r.Completion == nil {
		return Completion{}, errors.New("completion/complete result: it has no completion")
	}
	c := *r.Completion
	if len(c.Values) > MaxCompletionValues {
		c.Values, c.TooMany = c.Values[:MaxCompletionValues], true
	}
	return c, nil
}
