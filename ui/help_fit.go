package ui

import (
	"slices"

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
		if km == help.KeyMap(m.c.Keys) && slices.Equal(b.Keys(), m.c.Keys.Nav.Open.Keys()) {
			b = m.openBinding(b)
		}
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

// openBinding is enter as the focused pane takes it: the help said "call
// tool" wherever the focus was, while enter on a request opens its
// detail and on the wire log a frame's JSON. Attached to a proxy, enter
// on the tools does nothing, so it is not offered.
func (m *Model) openBinding(b key.Binding) key.Binding {
	switch {
	case m.focus == focusTools && m.opts.Attached != nil:
		b.SetEnabled(false) // attached, the host calls the tools
	case m.timelineOn, m.focus == focusTools:
		return b
	case m.focus == focusRequests:
		b.SetHelp(b.Help().Key, "detail")
	case m.bottom == bottomWire:
		b.SetHelp(b.Help().Key, "show JSON")
	default:
		b.SetEnabled(false) // a read's detail says itself that enter saves it
	}
	return b
}

// demoHint is the first-run hint on the demo server, whole on a narrow
// screen too.
func demoHint(w int) string {
	if long := "Try it: select sleep, press enter twice, then c to cancel it."; lipWidth(long) <= w {
		return long
	}
	return "Try: enter twice on sleep, then c cancels it."
}
