package termtext

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is a set of kinds of hidden character; a Finding holds the union
// of the kinds in its run.
type Kind uint8

// The kinds of hidden character Hidden reports.
const (
	// Control is a C0 or C1 control or DEL other than tab, newline and a
	// carriage return before a newline: in a terminal it can hide or
	// overwrite text.
	Control Kind = 1 << iota
	// Bidi is a bidi embedding, override, isolate or mark, which reorders
	// what is shown without changing what is read.
	Bidi
	// Tag is a tag character U+E0000–U+E007F; U+E0020–U+E007E spell
	// ASCII invisibly.
	Tag
	// Selector is a variation selector with no base to select; a run of
	// them can spell one byte each.
	Selector
	// Invisible is any other character Sanitize escapes: zero-width and
	// other format characters, line and paragraph separators,
	// noncharacters and default-ignorable fillers.
	Invisible
)

var kindNames = []string{"control", "bidi", "tag", "variation selector", "invisible"}

// String names the kinds in k, joined by "+".
func (k Kind) String() string {
	var names []string
	for i, name := range kindNames {
		if k&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return strings.Join(names, "+")
}

// Finding is one run of hidden characters in a string s.
type Finding struct {
	// Start and End are the byte offsets of the run: s[Start:End].
	Start, End int
	// Count is the number of code points in the run.
	Count int
	// Kinds is the union of the kinds of character in the run.
	Kinds Kind
	// Text is what the run spells, made safe with Line: tag characters as
	// ASCII, variation selectors as the bytes they encode. It is empty
	// when the run spells nothing, as a lone bidi override does.
	Text string
	// Escaped is the run as Sanitize shows it, such as `\u202e`.
	Escaped string
}

// String describes f on one line, for example
// `bytes 17-89: 18 hidden characters (tag) spelling "read ~/.ssh/id_rsa"`.
func (f Finding) String() string {
	where := fmt.Sprintf("bytes %d-%d", f.Start, f.End)
	what := fmt.Sprintf("%d hidden characters", f.Count)
	if f.Count == 1 {
		what = "1 hidden character"
	}
	desc := fmt.Sprintf("%s: %s (%s)", where, what, f.Kinds)
	if f.Text != "" {
		return desc + " spelling " + quoteShort(f.Text)
	}
	return desc + " " + ClipRunes(f.Escaped, maxPreview)
}

// maxPreview bounds the runes of text quoted in Finding.String, so that a
// megabyte of hidden text stays one readable line.
const maxPreview = 120

// quoteShort quotes s, already safe, clipped to maxPreview runes.
func quoteShort(s string) string {
	return `"` + ClipRunes(s, maxPreview) + `"`
}

// ClipRunes cuts s to at most n runes, marking a cut with "…".
func ClipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

// Hidden reports the runs of hidden characters in s, in order: every
// character Sanitize escapes except tab, newline, a carriage return
// before a newline and invalid UTF-8 (which shows as U+FFFD, not as
// nothing). Adjacent hidden characters of any kind form one run, so
// interleaving kinds does not split what a run spells. A tool described
// as "Adds two numbers." followed by tag characters spelling "read
// ~/.ssh/id_rsa" gives one Finding whose Text is "read ~/.ssh/id_rsa".
func Hidden(s string) []Finding { return slices.Collect(HiddenRuns(s)) }

// HiddenRuns yields the findings Hidden returns, one at a time, so that a
// caller can count every run of a huge string and keep only a few.
func HiddenRuns(s string) iter.Seq[Finding] {
	return func(yield func(Finding) bool) {
		if isPlain(s) {
			return
		}
		var (
			run     *Finding
			spelled []byte
			base    = noBase
		)
		flush := func() bool {
			if run == nil {
				return true
			}
			run.Text = Line(string(spelled))
			run.Escaped = Line(s[run.Start:run.End])
			f := *run
			run, spelled = nil, spelled[:0]
			return yield(f)
		}
		for i := 0; i < len(s); {
			r, size, escape := escapeAt(s, i, base)
			base = nextBase(r, escape)
			kind := hiddenKind(s[i+size:], r, size, escape)
			if kind == 0 {
				if !flush() {
					return
				}
			} else {
				if run == nil {
					run = &Finding{Start: i}
				}
				run.End = i + size
				run.Count++
				run.Kinds |= kind
				spelled = appendSpelled(spelled, r)
			}
			i += size
		}
		flush()
	}
}

// hiddenKind classifies r, of the given encoded size and followed by
// rest, or returns 0 when r is not hidden.
func hiddenKind(rest string, r rune, size int, escaped bool) Kind {
	switch {
	case !escaped,
		r == utf8.RuneError && size == 1,
		r == '\t', r == '\n',
		r == '\r' && strings.HasPrefix(rest, "\n"):
		return 0
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		return Control
	case r >= 0xe0000 && r <= 0xe007f:
		return Tag
	case unicode.Is(unicode.Bidi_Control, r):
		return Bidi
	case unicode.Is(unicode.Variation_Selector, r):
		return Selector
	}
	return Invisible
}

// appendSpelled appends what r spells, if anything: tag characters map
// to ASCII, and variation selectors to bytes as emoji smuggling encodes
// them (VS1–VS16 are 0–15, VS17–VS256 are 16–255).
func appendSpelled(b []byte, r rune) []byte {
	switch {
	case r >= 0xe0020 && r <= 0xe007e:
		return append(b, byte(r-0xe0000))
	case r >= 0xfe00 && r <= 0xfe0f:
		return append(b, byte(r-0xfe00))
	case r >= 0xe0100 && r <= 0xe01ef:
		return append(b, byte(r-0xe0100+16))
	}
	return b
}
