package ui

import (
	"encoding/json"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
)

// openEntry is enter on a resource, template or prompt: read the
// resource, or open the form of a template's variables or a prompt's
// arguments.
func (m *Model) openEntry(l *entryList) tea.Cmd {
	e := l.Selected()
	if e == nil || !m.ready() {
		return nil
	}
	switch e.kind {
	case entryResource:
		return m.read(e.id)
	case entryTemplate:
		if e.template.VariablesErr != nil {
			m.setStatus("cannot fill this template: "+e.template.VariablesErr.Error(), true)
			return nil
		}
		m.setEditing(true)
		return m.editor.OpenFor(e.template.ArgumentsTool(), m.target(targetTemplate, e.id))
	}
	m.setEditing(true)
	return m.editor.OpenFor(e.prompt.ArgumentsTool(), m.target(targetPrompt, e.id))
}

// target is an editor target, completing when the server declared
// completions.
func (m *Model) target(k targetKind, name string) editorTarget {
	complete := m.opts.Force || mcp.CheckDeclared(m.conn.Session.Peer(), "completion/complete") == nil
	return editorTarget{kind: k, name: name, complete: complete}
}

// read sends resources/read for uri.
func (m *Model) read(uri string) tea.Cmd {
	if !m.declared("resources/read") {
		return nil
	}
	m.setStatus("reading "+termtext.Line(uri)+"…", false)
	return requestCmd(m.gen, m.conn.Session, "resources/read", mcp.ReadResourceParams(uri), m.bounds(),
		purpose{kind: purposeRead, uri: uri}, "resources/read "+termtext.Line(uri))
}

// sendTarget sends what the editor filled in for a prompt or template.
func (m *Model) sendTarget(t editorTarget, args json.RawMessage) tea.Cmd {
	if !m.ready() {
		return nil
	}
	if t.kind == targetTemplate {
		var vars map[string]string
		if err := json.Unmarshal(args, &vars); err != nil {
			m.setStatus("template variables: "+err.Error(), true)
			return nil
		}
		uri, err := mcp.ExpandTemplate(t.name, vars)
		if err != nil {
			m.setStatus(err.Error(), true)
			return nil
		}
		return m.read(uri)
	}
	if !m.declared("prompts/get") {
		return nil
	}
	params, err := mcp.GetPromptParams(t.name, args)
	if err != nil {
		m.setStatus(err.Error(), true)
		return nil
	}
	m.setStatus("getting prompt "+termtext.Line(t.name)+"…", false)
	return requestCmd(m.gen, m.conn.Session, "prompts/get", params, m.bounds(), purpose{kind: purposeGetPrompt},
		"prompts/get "+termtext.Line(t.name))
}
