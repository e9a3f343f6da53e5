package ui

import (
	"errors"
	"path"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpoke/mcpoke/internal/savefile"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// contentsSavedMsg: a read's contents were saved to path (n bytes), or
// not (err).
type contentsSavedMsg struct {
	path string
	n    int
	err  error
}

// openSaveContents is enter on the detail of a completed resources/read:
// it asks where to save the contents (the first item, a blob decoded).
func (m *Model) openSaveContents() tea.Cmd {
	r := m.table.Selected()
	if r == nil || r.method != "resources/read" || r.state != session.Completed || r.info == nil {
		return nil
	}
	m.prompt.seq = r.seq
	return m.prompt.Open(promptSaveContents, "save the contents of "+termtext.Line(r.label())+" to:", defaultSaveName(r.tool))
}

// defaultSaveName is a file name for a resource's contents: the last
// part of its URI, when it is a plain name, in the current directory.
func defaultSaveName(uri string) string {
	base := path.Base(strings.TrimRight(uri, "/"))
	if i := strings.LastIndex(base, ":"); i >= 0 {
		base = base[i+1:]
	}
	if base == "" || base == "." || termtext.Line(base) != base || strings.ContainsAny(base, `\?*"<>|`) {
		base = "contents"
	}
	return "./" + base
}

// saveContents writes the first item of the read seq to path, never over
// a file, off Update.
func (m *Model) saveContents(seq uint64, path string) tea.Cmd {
	r := m.store.get(seq)
	if r == nil || r.info == nil {
		m.setStatus("that request is gone", true)
		return nil
	}
	raw := r.info.Result
	return func() tea.Msg {
		saved, err := savefile.ReadContents(raw, path, false)
		if errors.Is(err, savefile.ErrExists) {
			err = errors.New("the file exists; give another name")
		}
		return contentsSavedMsg{path: path, n: saved.Bytes, err: err}
	}
}
