package termtext

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

func TestSanitize(t *testing.T) {
	cases := []struct{ in, line, block string }{
		{"plain text", "plain text", "plain text"},
		{"\x1b[2J\x1b]0;pwned\x07", `\x1b[2J\x1b]0;pwned\x07`, `\x1b[2J\x1b]0;pwned\x07`},
		{"a\nb", "a⏎b", "a\nb"},
		{"tab\there", "tab here", "tab here"},
		{"\u009b31m", `\u009b31m`, `\u009b31m`},
		{"abc\u202edef", `abc\u202edef`, `abc\u202edef`},
		{"bad\xffbyte", `bad\xffbyte`, `bad\xffbyte`},
		{"héllo ✓", "héllo ✓", "héllo ✓"},
		{"\x1b]52;c;Zm9v\x07", `\x1b]52;c;Zm9v\x07`, `\x1b]52;c;Zm9v\x07`},
		{"a\r\nb", `a\x0d⏎b`, "a\\x0d\nb"},
		{"del\x7f", `del\x7f`, `del\x7f`},
		// Format characters (Cf) the old hand list missed.
		{"Adds\U000E0072\U000E0065", `Adds\U000e0072\U000e0065`, `Adds\U000e0072\U000e0065`},
		{"soft\u00adhyphen", `soft\u00adhyphen`, `soft\u00adhyphen`},
		{"mongolian\u180evs", `mongolian\u180evs`, `mongolian\u180evs`},
		{"word\u2060joiner\u2064", `word\u2060joiner\u2064`, `word\u2060joiner\u2064`},
		{"\u206a\u206f", `\u206a\u206f`, `\u206a\u206f`},
		{"\ufff9annotated\ufffb", `\ufff9annotated\ufffb`, `\ufff9annotated\ufffb`},
		{"line\u2028para\u2029", `line\u2028para\u2029`, `line\u2028para\u2029`},
		// Invisible outside Cf: noncharacters, Hangul fillers, CGJ.
		{"non\ufdd0char\U0010ffff", `non\ufdd0char\U0010ffff`, `non\ufdd0char\U0010ffff`},
		{"x\u3164y\uffa0z", `x\u3164y\uffa0z`, `x\u3164y\uffa0z`},
		{"a\u034fb", `a\u034fb`, `a\u034fb`},
		// Encoded surrogates are invalid UTF-8.
		{"\xed\xa0\x80", `\xed\xa0\x80`, `\xed\xa0\x80`},
		// Variation selectors: one after a base that takes it stays.
		{"❤\ufe0f 1\ufe0f\u20e3 \u845b\U000E0100", "❤\ufe0f 1\ufe0f\u20e3 \u845b\U000E0100", "❤\ufe0f 1\ufe0f\u20e3 \u845b\U000E0100"},
		{"a\ufe0f", `a\ufe0f`, `a\ufe0f`},
		{"\ufe0f", `\ufe0f`, `\ufe0f`},
		{"a\U000E0100", `a\U000e0100`, `a\U000e0100`},
		{"😀\ufe0f\U000E0158\U000E0155", `😀\ufe0f\U000e0158\U000e0155`, `😀\ufe0f\U000e0158\U000e0155`},
		// Private use and unassigned code points pass.
		{"\ue0a0 \U000F0000 \u0378", "\ue0a0 \U000F0000 \u0378", "\ue0a0 \U000F0000 \u0378"},
	}
	for _, c := range cases {
		if got := Line(c.in); got != c.line {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.line)
		}
		if got := Block(c.in); got != c.block {
			t.Errorf("Block(%q) = %q, want %q", c.in, got, c.block)
		}
	}
}

// TestSanitizeReturnsCleanInputUnchanged pins that clean non-ASCII text
// is returned as is, without a copy.
func TestSanitizeReturnsCleanInputUnchanged(t *testing.T) {
	in := strings.Repeat("héllo wörld ✓ ", 4)
	if got := Line(in); got != in || unsafe.StringData(got) != unsafe.StringData(in) {
		t.Errorf("Line copied or changed clean text: %q", got)
	}
}

// TestSanitizeEveryCodePoint checks every code point against the Unicode
// categories directly, so the escaping cannot drift from them: no rune of
// category Cc, Cf, Zl or Zp survives, and printable runes pass unchanged.
func TestSanitizeEveryCodePoint(t *testing.T) {
	mustEscape := []*unicode.RangeTable{unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp,
		unicode.Noncharacter_Code_Point, unicode.Other_Default_Ignorable_Code_Point}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		in := string(r)
		for _, keep := range []bool{false, true} {
			got := Sanitize(in, keep)
			for _, o := range got {
				if unicode.In(o, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) && !(o == '\n' && keep) {
					t.Fatalf("Sanitize(%U, %v) = %q keeps %U", r, keep, got, o)
				}
			}
			var want string
			switch {
			case r == '\n' && keep:
				want = "\n"
			case r == '\n':
				want = "⏎"
			case r == '\t':
				want = " "
			case r < 0x20 || r == 0x7f:
				want = fmt.Sprintf(`\x%02x`, r)
			case unicode.In(r, mustEscape...) || unicode.Is(unicode.Variation_Selector, r):
				// A variation selector with nothing before it is escaped.
				want = fmt.Sprintf(`\u%04x`, r)
				if r > 0xffff {
					want = fmt.Sprintf(`\U%08x`, r)
				}
			default:
				// Printable, private use and unassigned pass unchanged.
				want = in
			}
			if got != want {
				t.Fatalf("Sanitize(%U, %v) = %q, want %q", r, keep, got, want)
			}
		}
	}
}

// TestSanitizeSelectorAfterBase checks every variation selector after a
// base it is defined for, after a base it is not, and doubled.
func TestSanitizeSelectorAfterBase(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !unicode.Is(unicode.Variation_Selector, r) {
			continue
		}
		base := "\u845b" // an ideograph
		switch {
		case r <= 0x180f:
			base = "\u1820" // Mongolian letter A
		case r <= 0xfe0f:
			base = "❤"
		}
		if in := base + string(r); Line(in) != in {
			t.Errorf("Line(%q) = %q, want it unchanged", in, Line(in))
		}
		if in := "x" + string(r); Line(in) == in {
			t.Errorf("Line(%q) kept a selector after an ASCII letter", in)
		}
		if in := base + string(r) + string(r); Line(in) == in {
			t.Errorf("Line(%q) kept a run of selectors", in)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "ok", "\x1b[31mred", "\u202e", "\xff\xfe", "a\r\nb",
		"Adds\U000E0072\U000E0065", "❤\ufe0f\ufe0f", "\u845b\U000E0100x", "\u00ad\u180e\u2060"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, keep := range []bool{false, true} {
			out := Sanitize(s, keep)
			if !utf8.ValidString(out) {
				t.Fatalf("Sanitize(%q, %v) = %q is not valid UTF-8", s, keep, out)
			}
			prev := noBase
			for _, r := range out {
				if r == '\n' && keep {
					prev = noBase
					continue
				}
				if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp,
					unicode.Noncharacter_Code_Point, unicode.Other_Default_Ignorable_Code_Point) {
					t.Fatalf("Sanitize(%q, %v) = %q keeps %U", s, keep, out, r)
				}
				if unicode.Is(unicode.Variation_Selector, r) && !selectorFits(prev, r) {
					t.Fatalf("Sanitize(%q, %v) = %q keeps selector %U after %U", s, keep, out, r, prev)
				}
				prev = nextBase(r, false)
			}
			if !keep && strings.ContainsRune(out, '\n') {
				t.Fatalf("Line kept a newline: %q", out)
			}
			if again := Sanitize(out, keep); again != out {
				t.Fatalf("Sanitize is not a fixed point on its output: %q then %q", out, again)
			}
		}
	})
}

// Quote escapes once: the same escapes as Line, between quotes.
func TestQuoteEscapesOnce(t *testing.T) {
	if got, want := Quote("a\x1b[2J\u202eb"), `"a\x1b[2J\u202eb"`; got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
}
