package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// ConfigEdit is a change to a host's config: the text before and after.
// Unchanged says why nothing changed (already installed, not installed).
type ConfigEdit struct {
	Old, New  []byte
	Unchanged string
	// Start, for an HTTP entry, is the command that starts the proxy the
	// entry now points at.
	Start string
}

// entry is one server's object in a config, and its members.
type entry struct {
	obj     member
	members []member
}

// InstallStdio rewrites server's entry in a host's config (Claude
// Desktop, Cursor, VS Code, Claude Code's .mcp.json) so that the host
// starts `mcpoke proxy --name server -- <the original command>`. Only the
// entry's command and args change; comments, other fields and layout
// stay. An entry that already goes through the proxy is left alone.
func InstallStdio(config []byte, server, mcpoke string) (ConfigEdit, error) {
	e, err := findEntry(config, server)
	if err != nil {
		return ConfigEdit{}, err
	}
	command, args, err := e.commandLine(config, server)
	if err != nil {
		return ConfigEdit{}, err
	}
	if proxied(command, args) {
		return ConfigEdit{Old: config, New: config, Unchanged: fmt.Sprintf("server %q already goes through mcpoke proxy", server)}, nil
	}
	newArgs := append([]string{"proxy", "--name", server, "--", command}, args...)
	return ConfigEdit{Old: config, New: e.setCommandLine(config, mcpoke, newArgs)}, nil
}

// Uninstall restores the command InstallStdio wrapped.
func Uninstall(config []byte, server string) (ConfigEdit, error) {
	e, err := findEntry(config, server)
	if err != nil {
		return ConfigEdit{}, err
	}
	if edit, ok, err := uninstallHTTP(config, server, e); ok {
		return edit, err
	}
	command, args, err := e.commandLine(config, server)
	if err != nil {
		return ConfigEdit{}, err
	}
	if !proxied(command, args) {
		return ConfigEdit{Old: config, New: config, Unchanged: fmt.Sprintf("server %q does not go through mcpoke proxy", server)}, nil
	}
	dash := indexOf(args, "--")
	orig := args[dash+1:]
	return ConfigEdit{Old: config, New: e.setCommandLine(config, orig[0], orig[1:])}, nil
}

// proxied reports whether a command line is mcpoke proxy's stdio shim.
func proxied(command string, args []string) bool {
	base := strings.TrimSuffix(filepath.Base(command), ".exe")
	return strings.HasPrefix(base, "mcpoke") && len(args) > 0 && args[0] == "proxy" &&
		indexOf(args, "--") >= 0 && indexOf(args, "--") < len(args)-1
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// findEntry finds server in the tables the hosts use: "mcpServers"
// (Claude Desktop, Cursor, Claude Code), "servers" (VS Code's mcp.json),
// "mcp": {"servers"} (VS Code's settings.json).
func findEntry(b []byte, server string) (entry, error) {
	top, err := topObject(b)
	if err != nil {
		return entry{}, fmt.Errorf("the config does not parse: %w", err)
	}
	ms, err := members(b, top)
	if err != nil {
		return entry{}, fmt.Errorf("the config does not parse: %w", err)
	}
	var tables []member
	for _, key := range []string{"mcpServers", "servers"} {
		if m, ok := find(ms, key); ok {
			tables = append(tables, m)
		}
	}
	if m, ok := find(ms, "mcp"); ok && b[m.start] == '{' {
		inner, err := members(b, m.start)
		if err != nil {
			return entry{}, fmt.Errorf("the config does not parse: %w", err)
		}
		if s, ok := find(inner, "servers"); ok {
			tables = append(tables, s)
		}
	}
	var names []string
	for _, t := range tables {
		if b[t.start] != '{' {
			continue
		}
		entries, err := members(b, t.start)
		if err != nil {
			return entry{}, fmt.Errorf("the config does not parse: %w", err)
		}
		for _, e := range entries {
			if e.key == server {
				if b[e.start] != '{' {
					return entry{}, fmt.Errorf("server %q in the config is not an object", server)
				}
				fields, err := members(b, e.start)
				if err != nil {
					return entry{}, fmt.Errorf("the config does not parse: %w", err)
				}
				return entry{obj: e, members: fields}, nil
			}
			names = append(names, e.key)
		}
	}
	if len(tables) == 0 {
		return entry{}, errors.New(`no servers in the config: expected "mcpServers" (Claude Desktop, Cursor, Claude Code) or "servers" (VS Code)`)
	}
	sort.Strings(names)
	return entry{}, fmt.Errorf("no server %q in the config; it has: %s", server, strings.Join(names, ", "))
}

// commandLine reads the entry's command and args.
func (e entry) commandLine(b []byte, server string) (string, []string, error) {
	cm, ok := find(e.members, "command")
	if !ok {
		if _, isURL := find(e.members, "url"); isURL {
			return "", nil, fmt.Errorf("server %q is reached over HTTP: install does not rewrite HTTP entries yet; "+
				"run mcpoke proxy --url URL --listen 127.0.0.1:PORT and point the entry's url at http://127.0.0.1:PORT with the same path", server)
		}
		return "", nil, fmt.Errorf("server %q has no command", server)
	}
	var command string
	if err := json.Unmarshal(b[cm.start:cm.end], &command); err != nil || command == "" {
		return "", nil, fmt.Errorf("server %q: its command is not a string", server)
	}
	var args []string
	if am, ok := find(e.members, "args"); ok {
		if err := json.Unmarshal(stripComments(b[am.start:am.end]), &args); err != nil {
			return "", nil, fmt.Errorf("server %q: its args are not a list of strings", server)
		}
	}
	return command, args, nil
}

// setCommandLine returns b with the entry's command and args replaced
// (args added after command if it had none).
func (e entry) setCommandLine(b []byte, command string, args []string) []byte {
	cm, _ := find(e.members, "command")
	type edit struct {
		start, end int
		text       []byte
	}
	edits := []edit{{cm.start, cm.end, marshalLine(command)}}
	if am, ok := find(e.members, "args"); ok {
		edits = append(edits, edit{am.start, am.end, marshalLine(args)})
	} else {
		edits = append(edits, edit{cm.end, cm.end, append([]byte(`, "args": `), marshalLine(args)...)})
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := bytes.Clone(b)
	for _, ed := range edits {
		out = append(out[:ed.start], append(ed.text, out[ed.end:]...)...)
	}
	return out
}

// marshalLine is v as JSON on one line, without HTML escapes.
func marshalLine(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// stripComments blanks the comments in a JSONC value.
func stripComments(b []byte) []byte {
	out := bytes.Clone(b)
	s := &jsoncScanner{b: out}
	for s.i < len(out) {
		switch {
		case out[s.i] == '"':
			s.str()
		case out[s.i] == '/':
			start := s.i
			s.space()
			for j := start; j < s.i; j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			if s.i == start {
				s.i++
			}
		default:
			s.i++
		}
	}
	// A trailing comma before ']' is JSONC's; JSON refuses it.
	return trailingCommas(out)
}

func trailingCommas(b []byte) []byte {
	out := b[:0:0]
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case esc:
			esc = false
		case inStr:
			esc = c == '\\'
			inStr = c != '"'
		case c == '"':
			inStr = true
		case c == ',':
			j := i + 1
			for j < len(b) && (b[j] == ' ' || b[j] == '\t' || b[j] == '\n' || b[j] == '\r') {
				j++
			}
			if j < len(b) && (b[j] == ']' || b[j] == '}') {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// Diff shows the lines an edit changes, with two lines of context.
func (e ConfigEdit) Diff(name string) string {
	old, nu := strings.Split(string(e.Old), "\n"), strings.Split(string(e.New), "\n")
	pre := 0
	for pre < len(old) && pre < len(nu) && old[pre] == nu[pre] {
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(nu)-pre && old[len(old)-1-suf] == nu[len(nu)-1-suf] {
		suf++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", name, name)
	from := max(0, pre-2)
	fmt.Fprintf(&b, "@@ line %d @@\n", from+1)
	for _, l := range old[from:pre] {
		b.WriteString(" " + l + "\n")
	}
	for _, l := range old[pre : len(old)-suf] {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range nu[pre : len(nu)-suf] {
		b.WriteString("+" + l + "\n")
	}
	for _, l := range old[len(old)-suf : min(len(old), len(old)-suf+2)] {
		b.WriteString(" " + l + "\n")
	}
	return b.String()
}
