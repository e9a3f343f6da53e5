package ui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// styles holds every style the UI uses, named by what they mean rather
// than how they look, so a theme change is one function.
type styles struct {
	App        lipgloss.Style // the product name in the header
	Title      lipgloss.Style // a pane's title when it has focus
	TitleBlur  lipgloss.Style // a pane's title without focus
	ColumnHead lipgloss.Style // table column headings
	Separator  lipgloss.Style // pane separators
	FocusEdge  lipgloss.Style // the separator along the focused pane
	Text       lipgloss.Style
	Muted      lipgloss.Style // secondary text: descriptions, times
	Strong     lipgloss.Style
	Selected   lipgloss.Style // the selected row in the focused pane
	SelectBlur lipgloss.Style // the selected row in a pane without focus
	Key        lipgloss.Style // JSON keys and labels in the detail pane

	StatePending    lipgloss.Style
	StateCancelling lipgloss.Style
	StateCancelled  lipgloss.Style
	StateCompleted  lipgloss.Style
	StateFailed     lipgloss.Style
	StateTimedOut   lipgloss.Style
	StateToolError  lipgloss.Style // completed with isError: the tool failed

	ConnConnecting lipgloss.Style
	ConnReady      lipgloss.Style
	ConnClosed     lipgloss.Style

	Badge     lipgloss.Style // neutral badge: duplicate
	BadgeWarn lipgloss.Style // late traffic, stray

	ProgressFull  lipgloss.Style
	ProgressEmpty lipgloss.Style

	Status    lipgloss.Style
	StatusErr lipgloss.Style
	Hint      lipgloss.Style

	FieldLabel    lipgloss.Style
	FieldRequired lipgloss.Style
	FieldError    lipgloss.Style
	FieldFocused  lipgloss.Style // the marker of the focused field

	WireOut   lipgloss.Style
	WireIn    lipgloss.Style
	WireNoise lipgloss.Style

	Help help.Styles
}

// newStyles returns the styles for a dark or light terminal background.
// Colours are always paired so both stay readable; with NO_COLOR the
// renderer drops colours and the bold, faint and reverse attributes and
// the state glyphs still tell states apart.
func newStyles(isDark bool) *styles {
	ld := lipgloss.LightDark(isDark)
	c := func(light, dark string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(dark)) }

	var (
		accent = c("#5A3FD6", "#A48BFF")
		muted  = c("#6B6B6B", "#8A8A8A")
		faint  = c("#A0A0A0", "#5C5C5C")
		green  = c("#1A7F37", "#56D364")
		red    = c("#C62828", "#FF6B6B")
		amber  = c("#9A6700", "#E3B341")
		blue   = c("#0550AE", "#58A6FF")
		pink   = c("#A3137A", "#F778BA")
		orange = c("#BC4C00", "#FF9E64")
		text   = c("#1F1F1F", "#E6E6E6")
	)
	s := lipgloss.NewStyle
	st := &styles{
		App:        s().Bold(true).Foreground(accent),
		Title:      s().Bold(true).Underline(true).Foreground(accent), // underline: focus shows without colour too
		TitleBlur:  s().Foreground(muted),
		ColumnHead: s().Foreground(muted),
		Separator:  s().Foreground(faint),
		FocusEdge:  s().Bold(true).Foreground(accent),
		Text:       s().Foreground(text),
		Muted:      s().Foreground(muted),
		Strong:     s().Bold(true),
		Selected:   s().Reverse(true),
		SelectBlur: s().Underline(true),
		Key:        s().Foreground(blue),

		StatePending:    s().Foreground(blue),
		StateCancelling: s().Foreground(amber).Bold(true),
		StateCancelled:  s().Faint(true),
		StateCompleted:  s().Foreground(green),
		StateFailed:     s().Foreground(red).Bold(true),
		StateTimedOut:   s().Foreground(pink).Italic(true),
		StateToolError:  s().Foreground(orange).Bold(true),

		ConnConnecting: s().Foreground(amber),
		ConnReady:      s().Foreground(green),
		ConnClosed:     s().Foreground(red).Bold(true),

		Badge:     s().Foreground(blue),
		BadgeWarn: s().Foreground(amber),

		ProgressFull:  s().Foreground(accent),
		ProgressEmpty: s().Foreground(faint),

		Status:    s().Foreground(text),
		StatusErr: s().Foreground(red),
		Hint:      s().Foreground(accent).Italic(true),

		FieldLabel:    s().Bold(true),
		FieldRequired: s().Foreground(red),
		FieldError:    s().Foreground(red),
		FieldFocused:  s().Foreground(accent).Bold(true),

		WireOut:   s().Foreground(blue),
		WireIn:    s().Foreground(green),
		WireNoise: s().Foreground(amber),
	}
	st.Help = help.Styles{
		Ellipsis:       s().Foreground(muted),
		ShortKey:       s().Foreground(accent),
		ShortDesc:      s().Foreground(muted),
		ShortSeparator: s().Foreground(faint),
		FullKey:        s().Foreground(accent),
		FullDesc:       s().Foreground(muted),
		FullSeparator:  s().Foreground(faint),
	}
	return st
}

// Focus shows without colour too: the focused pane's title starts with
// focusMark (and is bold and underlined), and the separator along it is
// heavy (focusEdge) where the others are light (paneEdge).
const (
	focusMark = "▸ "
	focusEdge = "┃"
	paneEdge  = "│"
)

// paneTitleView renders a pane's title line, clipped to w, marked when
// the pane has focus.
func (s *styles) paneTitleView(focused bool, title string, w int) string {
	if focused {
		return s.Title.Render(clip(focusMark+title, w))
	}
	return s.TitleBlur.Render(clip(title, w))
}

// PaneTitle is the style of a pane's title, by whether the pane has focus.
func (s *styles) PaneTitle(focused bool) lipgloss.Style {
	if focused {
		return s.Title
	}
	return s.TitleBlur
}
