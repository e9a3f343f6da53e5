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
// On a tools/call's result it saves its first image, audio or blob.
func (m *Model) openSaveContents() tea.Cmd {
	r := m.table.Selected()
	if r == nil || r.State != session.Completed || r.Info == nil {
		return nil
	}
	switch b, ok := savefile.CallBinary(r.Info.Result); {
	case r.Method == "resources/read":
		m.prompt.seq = r.Seq
		return m.prompt.Open(promptSaveContents, "save the contents of "+termtext.Line(r.Label())+" to:", defaultSaveName(r.Tool))
	case r.Method == "tools/call" && ok:
		m.prompt.seq = r.Seq
		return m.prompt.Open(promptSaveContents, "save the "+binaryName(b)+" of "+termtext.Line(r.Label())+" to:", binarySaveName(b))
	}
	return nil
}

// binaryName names a tool result's binary item: "image (image/png)".
func binaryName(b savefile.Binary) string {
	what := b.Type
	if what == "resource" {
		what = "blob"
	}
	if b.MimeType != "" {
		what += " (" + termtext.Line(b.MimeType) + ")"
	}
	return what
}

// binarySaveName is a file name for a tool result's binary item: its
// type, with the MIME subtype as extension when it is a plain word.
func binarySaveName(b savefile.Binary) string {
	name := b.Type
	if name == "resource" {
		name = "blob"
	}
	if _, sub, ok := strings.Cut(b.MimeType, "/"); ok && sub != "" && len(sub) <= 16 &&
		strings.Trim(sub, "abcdefghijklmnopqrstuvwxyz0123456789") == "" {
		name += "." + sub
	}
	return "./" + name
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
	r := m.store.Get(seq)
	if r == nil || r.Info == nil {
		m.setStatus("that request is gone", true)
		return nil
	}
	raw := r.Info.Result
	if r.Method == "tools/call" {
		return func() tea.Msg {
			_, n, err := savefile.CallContent(raw, path, false)
			if errors.Is(err, savefile.ErrExists) {
				err = errors.New("the file exists; give another name")
			}
			return contentsSavedMsg{path: path, n: n, err: err}
		}
	}
	return func() tea.Msg {
		saved, err := savefile.ReadContents(raw, path, false)
		if errors.Is(err, savefile.ErrExists) {
			err = errors.New("the file exists; give another name")
		}
		return contentsSavedMsg{path: path, n: saved.Bytes, err: err}
	}
}
