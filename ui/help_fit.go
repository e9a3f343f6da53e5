package ui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// shortHelpView is the one-line help. When it does not fit, the keys
// before the last two go, the latest first, rather than the line being
// cut: the last two (? help and q quit, or the editor's way out) are the
// ones a newcomer needs on a narrow screen.
func (m *Model) shortHelpView(km help.KeyMap) string {
	var keys []key.Binding
	for _, b := range km.ShortHelp() {
		if b.Enabled() {
			keys = append(keys, b)
		}
	}
	w := m.layout.help.w
	m.help.SetWidth(0) // measured whole here, not cut
	for len(keys) > 2 && lipWidth(m.help.ShortHelpView(keys)) > w {
		keys = append(keys[:len(keys)-3], keys[len(keys)-2:]...)
	}
	m.help.SetWidth(w)
	return m.help.ShortHelpView(keys)
}
