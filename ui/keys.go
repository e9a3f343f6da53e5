package ui

import "charm.land/bubbles/v2/key"

// KeyMap is every key binding of the UI, grouped by where it applies.
type KeyMap struct {
	Global   GlobalKeys
	Nav      NavKeys
	Requests RequestKeys
	Editor   EditorKeys
	Prompt   PromptKeys
}

// GlobalKeys work everywhere except while typing in an editor or prompt.
type GlobalKeys struct {
	Quit      key.Binding
	ForceQuit key.Binding
	Help      key.Binding
	Focus     key.Binding
	FocusBack key.Binding
	Wire      key.Binding
	Stderr    key.Binding
	Filter    key.Binding
	Timeout   key.Binding
	Reconnect key.Binding
}

// NavKeys move inside the focused pane.
type NavKeys struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Open     key.Binding // open the argument editor, or expand a wire frame
	Back     key.Binding
}

// RequestKeys act on the selected request, whatever pane has focus.
type RequestKeys struct {
	Cancel           key.Binding
	CancelAll        key.Binding
	CancelWithReason key.Binding
	Rerun            key.Binding
}

// EditorKeys work in the argument editor.
type EditorKeys struct {
	Send       key.Binding
	Next       key.Binding
	Prev       key.Binding
	ToggleJSON key.Binding
	Choose     key.Binding // flip a boolean, step an enum
	Close      key.Binding
}

// PromptKeys work in the one-line prompt (reason, timeout, filter).
type PromptKeys struct {
	Accept key.Binding
	Cancel key.Binding
}

// DefaultKeyMap returns the bindings documented in the README and help.
func DefaultKeyMap() *KeyMap {
	b := func(keys []string, k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
	}
	return &KeyMap{
		Global: GlobalKeys{
			Quit:      b([]string{"q"}, "q", "quit"),
			ForceQuit: b([]string{"ctrl+c"}, "ctrl+c ×2", "force quit"),
			Help:      b([]string{"?"}, "?", "help"),
			Focus:     b([]string{"tab"}, "tab", "focus"),
			FocusBack: b([]string{"shift+tab"}, "shift+tab", "focus back"),
			Wire:      b([]string{"w"}, "w", "wire log"),
			Stderr:    b([]string{"e"}, "e", "stderr"),
			Filter:    b([]string{"/"}, "/", "filter"),
			Timeout:   b([]string{"t"}, "t", "timeout"),
			Reconnect: b([]string{"ctrl+r"}, "ctrl+r", "reconnect"),
		},
		Nav: NavKeys{
			Up:       b([]string{"up", "k"}, "↑/k", "up"),
			Down:     b([]string{"down", "j"}, "↓/j", "down"),
			PageUp:   b([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
			PageDown: b([]string{"pgdown", "ctrl+d"}, "pgdn", "page down"),
			Top:      b([]string{"home", "g"}, "g", "top"),
			Bottom:   b([]string{"end", "G"}, "G", "bottom"),
			Open:     b([]string{"enter"}, "enter", "call tool"),
			Back:     b([]string{"esc"}, "esc", "back"),
		},
		Requests: RequestKeys{
			Cancel:           b([]string{"c"}, "c", "cancel"),
			CancelAll:        b([]string{"C"}, "C", "cancel all"),
			CancelWithReason: b([]string{"R"}, "R", "cancel with reason"),
			Rerun:            b([]string{"r"}, "r", "re-run"),
		},
		Editor: EditorKeys{
			Send:       b([]string{"enter", "ctrl+s"}, "enter", "send"),
			Next:       b([]string{"tab", "down"}, "tab/↓", "next field"),
			Prev:       b([]string{"shift+tab", "up"}, "shift+tab/↑", "prev field"),
			ToggleJSON: b([]string{"ctrl+t"}, "ctrl+t", "form/JSON"),
			Choose:     b([]string{"space", "left", "right"}, "space/←/→", "choose"),
			Close:      b([]string{"esc"}, "esc", "close"),
		},
		Prompt: PromptKeys{
			Accept: b([]string{"enter"}, "enter", "ok"),
			Cancel: b([]string{"esc"}, "esc", "cancel"),
		},
	}
}

// ShortHelp implements help.KeyMap: the keys for the common flow.
func (k *KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{
		k.Nav.Open, k.Requests.Cancel, k.Requests.CancelAll, k.Global.Focus,
		k.Global.Wire, k.Global.Stderr, k.Global.Help, k.Global.Quit,
	}
}

// FullHelp implements help.KeyMap: every binding, in columns.
func (k *KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom},
		{k.Nav.Open, k.Requests.Cancel, k.Requests.CancelAll, k.Requests.CancelWithReason, k.Requests.Rerun, k.Global.Timeout},
		{k.Global.Focus, k.Global.Filter, k.Global.Wire, k.Global.Stderr, k.Global.Reconnect},
		{k.Global.Help, k.Global.Quit, k.Global.ForceQuit},
	}
}

// editorHelp is the help shown while the argument editor is open.
type editorHelp struct{ k *KeyMap }

// ShortHelp implements help.KeyMap.
func (h editorHelp) ShortHelp() []key.Binding {
	e := h.k.Editor
	return []key.Binding{e.Send, e.Next, e.Choose, e.ToggleJSON, e.Close}
}

// FullHelp implements help.KeyMap.
func (h editorHelp) FullHelp() [][]key.Binding {
	e := h.k.Editor
	return [][]key.Binding{{e.Send, e.Next, e.Prev}, {e.Choose, e.ToggleJSON, e.Close}}
}

// promptHelp is the help shown while the prompt is open.
type promptHelp struct{ k *KeyMap }

// ShortHelp implements help.KeyMap.
func (h promptHelp) ShortHelp() []key.Binding {
	return []key.Binding{h.k.Prompt.Accept, h.k.Prompt.Cancel}
}

// FullHelp implements help.KeyMap.
func (h promptHelp) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }
