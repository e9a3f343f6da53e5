package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Under protocol 2026-07-28 over Streamable HTTP, a tool may mark
// parameters with x-mcp-header in its inputSchema: their values travel in
// Mcp-Param-{Name} headers too, for intermediaries to route on. Clients
// MUST mirror them, and MUST drop a tool whose marks break the rules.

// HeaderParam is one parameter a tool mirrors into a header.
type HeaderParam struct {
	// Name is the x-mcp-header value: the header is Mcp-Param-{Name}.
	Name string
	// Path is the chain of properties keys from the schema's root.
	Path []string
}

// HeaderParams reads a tool's x-mcp-header marks. The error says why the
// tool definition is invalid: a mark that is empty, not an HTTP token,
// used twice (case-insensitively), on a parameter that is not a string,
// integer or boolean, or not reachable from the root through properties
// alone.
func HeaderParams(schema json.RawMessage) ([]HeaderParam, error) {
	if !bytes.Contains(schema, []byte(`"x-mcp-header"`)) {
		return nil, nil
	}
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return nil, fmt.Errorf("inputSchema is not JSON: %w", err)
	}
	w := headerWalk{seen: map[string]string{}}
	w.walk(root, nil, false)
	if w.err != nil {
		return nil, w.err
	}
	sort.SliceStable(w.params, func(i, j int) bool { return w.params[i].Name < w.params[j].Name })
	return w.params, nil
}

type headerWalk struct {
	params []HeaderParam
	seen   map[string]string // lower-case name → path, for uniqueness
	err    error
}

// walk visits v at path; property says v is a parameter's schema reached
// from the root through properties keys alone.
func (w *headerWalk) walk(v any, path []string, property bool) {
	if w.err != nil {
		return
	}
	switch n := v.(type) {
	case []any:
		for _, e := range n {
			w.walk(e, path, false)
		}
	case map[string]any:
		if mark, ok := n["x-mcp-header"]; ok {
			w.mark(n, mark, path, property)
		}
		for _, k := range sortedKeys(n) {
			if k == "properties" && (property || path == nil) {
				if props, ok := n[k].(map[string]any); ok {
					for _, name := range sortedKeys(props) {
						w.walk(props[name], append(append([]string(nil), path...), name), true)
					}
					continue
				}
			}
			w.walk(n[k], append(append([]string(nil), path...), "#"+k), false)
		}
	}
}

func (w *headerWalk) mark(schema map[string]any, mark any, path []string, property bool) {
	where := "/" + strings.Join(path, "/")
	name, ok := mark.(string)
	switch {
	case !property:
		w.err = fmt.Errorf("x-mcp-header at %s is not on a parameter reachable through properties alone", where)
	case !ok || name == "":
		w.err = fmt.Errorf("x-mcp-header of %s is empty or not a string", where)
	case !isToken(name):
		w.err = fmt.Errorf("x-mcp-header %q of %s is not an HTTP header name token", name, where)
	case w.seen[strings.ToLower(name)] != "":
		w.err = fmt.Errorf("x-mcp-header %q of %s is also used by %s", name, where, w.seen[strings.ToLower(name)])
	}
	if w.err != nil {
		return
	}
	switch t, _ := schema["type"].(string); t {
	case "string", "integer", "boolean":
	default:
		w.err = fmt.Errorf("x-mcp-header %q of %s marks a parameter of type %q; only string, integer and boolean may be", name, where, t)
		return
	}
	w.seen[strings.ToLower(name)] = where
	w.params = append(w.params, HeaderParam{Name: name, Path: path})
}

// isToken reports whether s is an HTTP field-name token (RFC 9110 tchar).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return s != ""
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ErrHeaderValue means an argument marked x-mcp-header has a value a header
// cannot carry (a fraction, an integer past JavaScript's safe range, an
// object).
var ErrHeaderValue = errors.New("argument cannot be sent as a header")

// maxSafeInteger is JavaScript's Number.MAX_SAFE_INTEGER, the bound the
// spec puts on integers in headers.
const maxSafeInteger = 1<<53 - 1

// ParamHeaders returns the Mcp-Param headers a call of t with args must
// carry, by name (without the prefix) and with plain values: the
// transport encodes them. A parameter absent from args, or null, has
// none.
func ParamHeaders(t Tool, args json.RawMessage) (map[string]string, error) {
	params, err := HeaderParams(t.InputSchema)
	if err != nil || len(params) == 0 {
		return nil, err
	}
	var root any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("arguments are not JSON: %w", err)
	}
	out := map[string]string{}
	for _, p := range params {
		v, ok := lookup(root, p.Path)
		if !ok || v == nil {
			continue
		}
		switch x := v.(type) {
		case string:
			out[p.Name] = x
		case bool:
			out[p.Name] = fmt.Sprint(x)
		case json.Number:
			n, err := x.Int64()
			if err != nil || n > maxSafeInteger || n < -maxSafeInteger {
				return nil, fmt.Errorf("%w: %s is %s, not an integer in JavaScript's safe range", ErrHeaderValue, strings.Join(p.Path, "."), x)
			}
			out[p.Name] = x.String()
		default:
			return nil, fmt.Errorf("%w: %s is not a string, integer or boolean", ErrHeaderValue, strings.Join(p.Path, "."))
		}
	}
	return out, nil
}

// lookup reads the value at path in v.
func lookup(v any, path []string) (any, bool) {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}
