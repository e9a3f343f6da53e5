package connect

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Vars is what the ${...} variables of a client config expand to, as VS
// Code and Cursor expand them: ${env:NAME}, ${userHome},
// ${workspaceFolder} (the current directory), ${workspaceFolderBasename},
// ${pathSeparator} or ${/}, and ${input:ID} for an entry of the file's
// "inputs", whose value the user gives when the server starts.
type Vars struct {
	// LookupEnv reads the environment; os.LookupEnv when nil. An unset
	// variable expands to "", as in VS Code.
	LookupEnv func(string) (string, bool)
	Home      string
	Workspace string
}

// EnvVars are the Vars of this process: its environment, the user's home
// and the current directory.
func EnvVars() Vars {
	home, _ := os.UserHomeDir()
	wd, _ := os.Getwd()
	return Vars{LookupEnv: os.LookupEnv, Home: home, Workspace: wd}
}

// Input is one entry of a config's "inputs": a value VS Code asks for
// when the server starts, such as an API key.
type Input struct {
	ID          string   `json:"id"`
	Type        string   `json:"type"` // promptString or pickString
	Description string   `json:"description"`
	Password    bool     `json:"password"`
	Default     string   `json:"default"`
	Options     []string `json:"options"`
}

// inputRef is how an input stays in a Spec's strings until the user gives
// its value (Spec.WithInputs). The NUL bytes keep it from meeting anything
// a config could spell.
func inputRef(id string) string { return "\x00input:" + id + "\x00" }

// expander expands the variables of one server entry and notes which
// inputs it needs.
type expander struct {
	vars   Vars
	inputs map[string]Input // the config's inputs, by id
	needs  []Input          // inputs this entry uses, in first-use order
	unset  []string         // the ${env:NAME} names that are not set, in first-use order
}

// expand returns s with its variables replaced. A ${ without its } is
// kept as text, as VS Code keeps it; an unknown variable is an error.
func (e *expander) expand(s string) (string, error) {
	var b strings.Builder
	for {
		start := strings.Index(s, "${")
		if start < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		end := strings.IndexByte(s[start:], '}')
		if end < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:start])
		v, err := e.value(s[start+2 : start+end])
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		s = s[start+end+1:]
	}
}

func (e *expander) value(name string) (string, error) {
	kind, arg, hasArg := strings.Cut(name, ":")
	switch {
	case kind == "env" && hasArg:
		lookup := e.vars.LookupEnv
		if lookup == nil {
			lookup = os.LookupEnv
		}
		v, ok := lookup(arg)
		if !ok && !slices.Contains(e.unset, arg) {
			e.unset = append(e.unset, arg)
		}
		return v, nil
	case kind == "input" && hasArg:
		in, ok := e.inputs[arg]
		if !ok {
			return "", fmt.Errorf(`${input:%s} names no entry of the config's "inputs"`, arg)
		}
		if !e.needsInput(arg) {
			e.needs = append(e.needs, in)
		}
		return inputRef(arg), nil
	case hasArg:
	case name == "userHome":
		return e.vars.Home, nil
	case name == "workspaceFolder":
		return e.vars.Workspace, nil
	case name == "workspaceFolderBasename":
		return filepath.Base(e.vars.Workspace), nil
	case name == "pathSeparator" || name == "/":
		return string(filepath.Separator), nil
	}
	return "", fmt.Errorf("unknown variable ${%s}: mcpoke knows ${env:NAME}, ${input:ID}, ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator} and ${/}", name)
}

func (e *expander) needsInput(id string) bool {
	for _, in := range e.needs {
		if in.ID == id {
			return true
		}
	}
	return false
}

// WithInputs returns the spec with each of its Inputs replaced by the
// value the user gave. A missing value is an error that names the input.
func (s Spec) WithInputs(values map[string]string) (Spec, error) {
	if len(s.Inputs) == 0 {
		return s, nil
	}
	pairs := make([]string, 0, 2*len(s.Inputs))
	for _, in := range s.Inputs {
		v, ok := values[in.ID]
		if !ok {
			return Spec{}, MissingInputError{Server: s.Name, Input: in}
		}
		pairs = append(pairs, inputRef(in.ID), v)
	}
	r := strings.NewReplacer(pairs...)
	out := s
	out.Command, out.Dir, out.URL = r.Replace(s.Command), r.Replace(s.Dir), r.Replace(s.URL)
	out.Args = replaceAll(r, s.Args)
	out.Env = replaceAll(r, s.Env)
	out.Inputs = nil
	return out, nil
}

func replaceAll(r *strings.Replacer, ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = r.Replace(s)
	}
	return out
}

// MissingInputError means the server's config uses an ${input:ID} that has no
// value.
type MissingInputError struct {
	Server string
	Input  Input
}

func (e MissingInputError) Error() string {
	what := "${input:" + e.Input.ID + "}"
	if e.Input.Description != "" {
		what += " (" + e.Input.Description + ")"
	}
	return fmt.Sprintf("server %q needs the input %s, which VS Code asks for when the server starts; "+
		"mcpoke asks for it in the TUI; for headless commands put the value in the config or in an environment variable (${env:NAME})",
		e.Server, what)
}

// showInputs spells the inputs still in s as the config did.
func (s Spec) showInputs(v string) string {
	for _, in := range s.Inputs {
		v = strings.ReplaceAll(v, inputRef(in.ID), "${input:"+in.ID+"}")
	}
	return v
}
