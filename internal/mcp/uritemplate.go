package mcp

import (
	"fmt"

	"github.com/yosida95/uritemplate/v3"
)

// TemplateVariables returns the variable names of a resource template's
// URI template (RFC 6570), in order and each once.
func TemplateVariables(tmpl string) ([]string, error) {
	t, err := uritemplate.New(tmpl)
	if err != nil {
		return nil, fmt.Errorf("uriTemplate %q: %w", clip(tmpl, 80), err)
	}
	return t.Varnames(), nil
}

// ExpandTemplate fills a URI template with vars, percent-encoding them
// as RFC 6570 says for each expression; variables without a value are
// left out, as the RFC says for undefined ones.
func ExpandTemplate(tmpl string, vars map[string]string) (string, error) {
	t, err := uritemplate.New(tmpl)
	if err != nil {
		return "", fmt.Errorf("uriTemplate %q: %w", clip(tmpl, 80), err)
	}
	values := uritemplate.Values{}
	for k, v := range vars {
		values.Set(k, uritemplate.String(v))
	}
	uri, err := t.Expand(values)
	if err != nil {
		return "", fmt.Errorf("uriTemplate %q: %w", clip(tmpl, 80), err)
	}
	return uri, nil
}

// MatchTemplate reports whether uri is an expansion of tmpl and, if so,
// the values of its variables: the server side of a template.
func MatchTemplate(tmpl, uri string) (map[string]string, bool) {
	t, err := uritemplate.New(tmpl)
	if err != nil {
		return nil, false
	}
	values := t.Match(uri)
	if values == nil {
		return nil, false
	}
	out := map[string]string{}
	for _, name := range t.Varnames() {
		if v := values.Get(name); v.Valid() {
			out[name] = v.String()
		}
	}
	return out, true
}
