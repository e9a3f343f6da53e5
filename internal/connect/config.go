package connect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mcpoke/mcpoke/internal/suggest"
	"github.com/mcpoke/mcpoke/transport"
)

// Servers are the servers of one client config file, by name. An entry
// that cannot be used keeps its error, which Get returns: one bad entry
// does not stop the others from working.
type Servers struct {
	specs map[string]Spec
	bad   map[string]error
}

// Names returns every server name, sorted.
func (s Servers) Names() []string {
	names := make([]string, 0, len(s.specs)+len(s.bad))
	for n := range s.specs {
		names = append(names, n)
	}
	for n := range s.bad {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Get returns the server called name.
func (s Servers) Get(name string) (Spec, error) {
	if err, ok := s.bad[name]; ok {
		return Spec{}, err
	}
	spec, ok := s.specs[name]
	if !ok {
		return Spec{}, s.unknown(name)
	}
	return spec, nil
}

func (s Servers) unknown(name string) error {
	names := s.Names()
	msg := fmt.Sprintf("no server %q in the config; it has: %s", name, strings.Join(quoteAll(names), ", "))
	if near := suggest.Closest(name, names, 3); len(near) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(quoteAll(near), " or "))
	}
	return errors.New(msg)
}

// configFile covers the layouts clients write: Claude Desktop and Cursor
// use "mcpServers"; VS Code uses "servers" in .vscode/mcp.json and
// "mcp": {"servers"} in settings.json.
type configFile struct {
	MCPServers map[string]json.RawMessage `json:"mcpServers"`
	Servers    map[string]json.RawMessage `json:"servers"`
	Inputs     []Input                    `json:"inputs"`
	MCP        *struct {
		Servers map[string]json.RawMessage `json:"servers"`
		Inputs  []Input                    `json:"inputs"`
	} `json:"mcp"`
}

// configEntry is one server in any of those layouts.
type configEntry struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	EnvFile string            `json:"envFile"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	OAuth   *struct {
		ClientID     string `json:"clientId"`
		ClientSecret string `json:"clientSecret"`
	} `json:"oauth"`
	// Roots is mcpoke's own: directories (or file:// URIs) offered to
	// the server as roots.
	Roots []string `json:"roots"`
}

// utf8BOM starts files that some Windows editors save.
var utf8BOM = []byte("\xef\xbb\xbf")

// ParseConfig reads a client config file's servers, with this process's
// Vars. It accepts comments, trailing commas and a byte-order mark, as VS
// Code does.
func ParseConfig(data []byte) (Servers, error) { return ParseConfigVars(data, EnvVars()) }

// ParseConfigVars is ParseConfig with the given Vars.
func ParseConfigVars(data []byte, vars Vars) (Servers, error) {
	var f configFile
	if err := json.Unmarshal(stripJSONC(bytes.TrimPrefix(data, utf8BOM)), &f); err != nil {
		return Servers{}, fmt.Errorf("not a JSON config file: %w", err)
	}
	s := Servers{specs: map[string]Spec{}, bad: map[string]error{}}
	tables := []map[string]json.RawMessage{f.MCPServers, f.Servers}
	inputs := map[string]Input{}
	for _, in := range f.Inputs {
		inputs[in.ID] = in
	}
	if f.MCP != nil {
		tables = append(tables, f.MCP.Servers)
		for _, in := range f.MCP.Inputs {
			inputs[in.ID] = in
		}
	}
	for _, table := range tables {
		for name, raw := range table {
			if _, seen := s.specs[name]; seen {
				continue
			}
			if _, seen := s.bad[name]; seen {
				continue
			}
			spec, err := parseEntry(name, raw, &expander{vars: vars, inputs: inputs})
			if err != nil {
				s.bad[name] = err
				continue
			}
			s.specs[name] = spec
		}
	}
	if len(s.specs)+len(s.bad) == 0 {
		return Servers{}, errors.New(`no servers in the config: expected "mcpServers" (Claude Desktop, Cursor) or "servers" (VS Code)`)
	}
	return s, nil
}

func parseEntry(name string, raw json.RawMessage, x *expander) (Spec, error) {
	var e configEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return Spec{}, fmt.Errorf("server %q in the config is not usable: %w", name, err)
	}
	if err := e.expand(x); err != nil {
		return Spec{}, fmt.Errorf("server %q in the config: %w", name, err)
	}
	spec := Spec{Name: name, Command: e.Command, Args: e.Args, Dir: e.Cwd, URL: e.URL, Inputs: x.needs, UnsetEnv: x.unset}
	for _, k := range sortedKeys(e.Env) {
		spec.Env = append(spec.Env, k+"="+e.Env[k])
	}
	for _, k := range sortedKeys(e.Headers) {
		spec.Headers = append(spec.Headers, k+": "+e.Headers[k])
	}
	if e.OAuth != nil {
		spec.ClientID, spec.ClientSecret = e.OAuth.ClientID, e.OAuth.ClientSecret
	}
	for _, r := range e.Roots {
		if !strings.Contains(r, "://") && !filepath.IsAbs(r) {
			r = filepath.Join(x.vars.Workspace, r)
		}
		spec.Roots = append(spec.Roots, r)
	}
	switch e.Type {
	case "http", "streamableHttp", "streamable-http":
		spec.Transport = "http"
	case "sse":
		spec.Transport = "sse"
	}
	switch {
	case e.URL != "":
		if !IsURL(e.URL) {
			return Spec{}, fmt.Errorf(`server %q in the config: "url" %q is not an http:// or https:// URL`, name, transport.RedactURL(e.URL))
		}
	case spec.Transport != "":
		return Spec{}, fmt.Errorf(`server %q has type %q but no "url"`, name, e.Type)
	case e.Command == "":
		return Spec{}, fmt.Errorf(`server %q in the config has no "command"`, name)
	}
	return spec, nil
}

// expand replaces the entry's variables and merges its envFile under its
// env: a key in "env" wins, as in VS Code.
func (e *configEntry) expand(x *expander) error {
	var err error
	one := func(s *string) {
		if err == nil {
			*s, err = x.expand(*s)
		}
	}
	one(&e.Command)
	one(&e.Cwd)
	one(&e.URL)
	for k, v := range e.Headers {
		one(&v)
		e.Headers[k] = v
	}
	one(&e.EnvFile)
	if e.OAuth != nil {
		one(&e.OAuth.ClientID)
		one(&e.OAuth.ClientSecret)
	}
	for i := range e.Args {
		one(&e.Args[i])
	}
	for i := range e.Roots {
		one(&e.Roots[i])
	}
	for k, v := range e.Env {
		one(&v)
		e.Env[k] = v
	}
	if err != nil || e.EnvFile == "" {
		return err
	}
	path := e.EnvFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(x.vars.Workspace, path)
	}
	fileEnv, err := readEnvFile(path)
	if err != nil {
		return err
	}
	if e.Env == nil {
		e.Env = map[string]string{}
	}
	for k, v := range fileEnv {
		if _, set := e.Env[k]; !set {
			e.Env[k] = v
		}
	}
	return nil
}

// maxConfigFile bounds a config file: it names a few servers.
const maxConfigFile = 1 << 20

// LoadServer reads the config file at path and returns the server called
// name. With an empty name it returns the only server, if there is one.
func LoadServer(path, name string) (Spec, error) {
	data, err := readSmallFile("config file", path, maxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return Spec{}, fmt.Errorf("config file %s does not exist", path)
	}
	if err != nil {
		return Spec{}, err
	}
	servers, err := ParseConfig(data)
	if err != nil {
		return Spec{}, fmt.Errorf("config file %s: %w", path, err)
	}
	if name == "" {
		names := servers.Names()
		if len(names) != 1 {
			return Spec{}, fmt.Errorf("config file %s has %d servers; pick one with --server NAME: %s",
				path, len(names), strings.Join(quoteAll(names), ", "))
		}
		name = names[0]
	}
	spec, err := servers.Get(name)
	if err != nil {
		return Spec{}, fmt.Errorf("config file %s: %w", path, err)
	}
	return spec, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func quoteAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}
