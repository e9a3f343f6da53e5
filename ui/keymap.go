package ui

import "charm.land/bubbles/v2/key"

// keyMap is every key binding of the UI, grouped by where it applies.
type keyMap struct {
	Global   globalKeys
	Nav      navKeys
	Requests requestKeys
	Editor   editorKeys
	Prompt   promptKeys
	Ask      askKeys
}

// globalKeys work everywhere except while typing in an editor or prompt.
type globalKeys struct {
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
	ListTools key.Binding
	// WriteTranscript writes what the wire log keeps as NDJSON.
	WriteTranscript key.Binding
	// Resources, prompts, logging and ping (issue 13).
	ShowTools     key.Binding
	ShowResources key.Binding
	ShowPrompts   key.Binding
	Subscribe     key.Binding
	Ping          key.Binding
	Log           key.Binding
	LogLevel      key.Binding
	// Tasks shows only the task rows, or every row again.
	Tasks key.Binding
}

// navKeys move inside the focused pane.
type navKeys struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Open     key.Binding // open the argument editor, or expand a wire frame
	Back     key.Binding
}

// requestKeys act on the selected request, whatever pane has focus.
type requestKeys struct {
	Cancel           key.Binding
	CancelAll        key.Binding
	CancelWithReason key.Binding
	Rerun            key.Binding
	Timeline         key.Binding // the selected request's life as a sequence diagram
	// Attached to a proxy only: hold, release or drop the answer to the
	// host's selected request; show the host's report card.
	Hold, Release, Drop, Card key.Binding
}

// editorKeys work in the argument editor.
type editorKeys struct {
	Send          key.Binding // in the form
	SendJSON      key.Binding // in the JSON editor, where enter is a newline
	SendUnchecked key.Binding // send arguments that break the schema
	Next          key.Binding
	Prev          key.Binding
	ToggleJSON    key.Binding
	Choose        key.Binding // flip a boolean, step an enum
	Close         key.Binding
	// NextSuggestion and PrevSuggestion put a completion in the field.
	NextSuggestion key.Binding
	PrevSuggestion key.Binding
	AsTask         key.Binding // call the tool as a task, where it may be one
}

// askKeys answer the server's question in its panel (sampling,
// elicitation); AddRoot works everywhere.
type askKeys struct {
	Send    key.Binding // the reply, the form: accept
	Accept  key.Binding // a URL: accept without opening it
	Open    key.Binding // a URL: open it with $BROWSER, and accept
	Decline key.Binding
	Dismiss key.Binding // elicitation's cancel: no choice made
	Later   key.Binding // close the panel; the request waits
	AddRoot key.Binding
}

// promptKeys work in the one-line prompt (reason, timeout, filter).
type promptKeys struct {
	Accept key.Binding
	Cancel key.Binding
}

// defaultKeyMap returns the bindings documented in the README and help.
func defaultKeyMap() *keyMap {
	b := func(keys []string, k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
	}
	off := func(b key.Binding) key.Binding { b.SetEnabled(false); return b }
	return &keyMap{
		Global: globalKeys{
			Quit:            b([]string{"q"}, "q", "quit"),
			ForceQuit:       b([]string{"ctrl+c"}, "ctrl+c ×2", "force quit"),
			Help:            b([]string{"?"}, "?", "help"),
			Focus:           b([]string{"tab"}, "tab", "focus"),
			FocusBack:       b([]string{"shift+tab"}, "shift+tab", "focus back"),
			Wire:            b([]string{"w"}, "w", "wire log"),
			Stderr:          b([]string{"e"}, "e", "stderr"),
			Filter:          b([]string{"/"}, "/", "filter"),
			Timeout:         b([]string{"t"}, "t", "timeout"),
			Reconnect:       b([]string{"ctrl+r"}, "ctrl+r", "reconnect"),
			ListTools:       b([]string{"L"}, "L", "list tools again"),
			WriteTranscript: b([]string{"W"}, "W", "write transcript"),
			ShowTools:       b([]string{"1"}, "1", "tools"),
			ShowResources:   b([]string{"2"}, "2", "resources"),
			ShowPrompts:     b([]string{"3"}, "3", "prompts"),
			Subscribe:       b([]string{"s"}, "s", "subscribe"),
			Ping:            b([]string{"p"}, "p", "ping"),
			Log:             b([]string{"l"}, "l", "server log"),
			LogLevel:        b([]string{"V"}, "V", "log level"),
			Tasks:           b([]string{"K"}, "K", "tasks"),
		},
		Nav: navKeys{
			Up:       b([]string{"up", "k"}, "↑/k", "up"),
			Down:     b([]string{"down", "j"}, "↓/j", "down"),
			PageUp:   b([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
			PageDown: b([]string{"pgdown", "ctrl+d"}, "pgdn", "page down"),
			Top:      b([]string{"home", "g"}, "g", "top"),
			Bottom:   b([]string{"end", "G"}, "G", "bottom"),
			Open:     b([]string{"enter"}, "enter", "call tool"),
			Back:     b([]string{"esc"}, "esc", "back"),
		},
		Requests: requestKeys{
			Cancel:           b([]string{"c"}, "c", "cancel"),
			CancelAll:        b([]string{"C"}, "C", "cancel all"),
			CancelWithReason: b([]string{"R"}, "R", "cancel with reason"),
			Rerun:            b([]string{"r"}, "r", "re-run"),
			Timeline:         b([]string{"d"}, "d", "timeline"),
			Hold:             off(b([]string{"h"}, "h", "hold answer")),
			Release:          off(b([]string{"enter"}, "enter", "release held")),
			Drop:             off(b([]string{"x"}, "x", "drop held")),
			Card:             off(b([]string{"i"}, "i", "report card")),
		},
		Editor: editorKeys{
			Send:          b([]string{"enter", "ctrl+s"}, "enter", "send"),
			SendJSON:      b([]string{"ctrl+s"}, "ctrl+s", "send"),
			SendUnchecked: b([]string{"ctrl+f"}, "ctrl+f", "send unchecked"),
			Next:          b([]string{"tab", "down"}, "tab/↓", "next field"),
			Prev:          b([]string{"shift+tab", "up"}, "shift+tab/↑", "prev field"),
			ToggleJSON:    b([]string{"ctrl+t"}, "ctrl+t", "form/JSON"),
			Choose:        b([]string{"space", "left", "right"}, "space/←/→", "choose"),
			Close:         b([]string{"esc"}, "esc", "close"),

			NextSuggestion: b([]string{"ctrl+n"}, "ctrl+n", "next suggestion"),
			PrevSuggestion: b([]string{"ctrl+p"}, "ctrl+p", "prev suggestion"),
			AsTask:         b([]string{"ctrl+k"}, "ctrl+k", "as task"),
		},
		Prompt: promptKeys{
			Accept: b([]string{"enter"}, "enter", "ok"),
			Cancel: b([]string{"esc"}, "esc", "cancel"),
		},
		Ask: askKeys{
			Send:    b([]string{"ctrl+s"}, "ctrl+s", "send"),
			Accept:  b([]string{"enter", "ctrl+s"}, "enter", "accept"),
			Open:    b([]string{"o"}, "o", "open URL & accept"),
			Decline: b([]string{"ctrl+x"}, "ctrl+x", "decline"),
			Dismiss: b([]string{"ctrl+g"}, "ctrl+g", "cancel (no choice)"),
			Later:   b([]string{"esc"}, "esc", "later"),
			AddRoot: b([]string{"a"}, "a", "add root"),
		},
	}
}

// ShortHelp implements help.KeyMap: the keys for the common flow.
func (k *keyMap) ShortHelp() []key.Binding {
	return []key.Binding{
		k.Nav.Open, k.Requests.Cancel, k.Requests.CancelAll, k.Requests.Timeline, k.Global.Focus,
		k.Global.Wire, k.Global.Stderr, k.Global.Help, k.Global.Quit,
	}
}

// FullHelp implements help.KeyMap: every binding, in columns.
func (k *keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Nav.Up, k.Nav.Down, k.Nav.PageUp, k.Nav.PageDown, k.Nav.Top, k.Nav.Bottom},
		{k.Nav.Open, k.Requests.Cancel, k.Requests.CancelAll, k.Requests.CancelWithReason, k.Requests.Rerun, k.Global.Timeout, k.Requests.Timeline,
			k.Requests.Hold, k.Requests.Release, k.Requests.Drop, k.Requests.Card},
		{k.Global.Focus, k.Global.Filter, k.Global.Wire, k.Global.Stderr, k.Global.ListTools, k.Global.WriteTranscript, k.Global.Reconnect, k.Ask.AddRoot,
			k.Global.Tasks},
		{k.Global.Help, k.Global.Quit, k.Global.ForceQuit},
		{k.Global.ShowTools, k.Global.ShowResources, k.Global.ShowPrompts, k.Global.Subscribe, k.Global.Ping, k.Global.Log, k.Global.LogLevel},
	}
}

// editorHelp is the help shown while the argument editor is open; the
// JSON editor sends with its own key, since enter there is a newline.
type editorHelp struct {
	k    *keyMap
	json bool
}

func (h editorHelp) send() key.Binding {
	if h.json {
		return h.k.Editor.SendJSON
	}
	return h.k.Editor.Send
}

// ShortHelp implements help.KeyMap.
func (h editorHelp) ShortHelp() []key.Binding {
	e := h.k.Editor
	if h.json {
		return []key.Binding{h.send(), e.SendUnchecked, e.ToggleJSON, e.Close}
	}
	return []key.Binding{h.send(), e.Next, e.Choose, e.ToggleJSON, e.Close}
}

// FullHelp implements help.KeyMap.
func (h editorHelp) FullHelp() [][]key.Binding {
	e := h.k.Editor
	return [][]key.Binding{{h.send(), e.SendUnchecked, e.Next, e.Prev}, {e.Choose, e.ToggleJSON, e.Close, e.AsTask},
		{e.NextSuggestion, e.PrevSuggestion}}
}

// promptHelp is the help shown while the prompt is open.
type promptHelp struct{ k *keyMap }

// ShortHelp implements help.KeyMap.
func (h promptHelp) ShortHelp() []key.Binding {
	return []key.Binding{h.k.Prompt.Accept, h.k.Prompt.Cancel}
}

// FullHelp implements help.KeyMap.
func (h promptHelp) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }
