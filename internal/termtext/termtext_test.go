package termtext

import (
	"strings"
	"testing"
	"unicode"
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

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "ok", "\x1b[31mred", "\u202e", "\xff\xfe", "a\r\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, keep := range []bool{false, true} {
			out := Sanitize(s, keep)
			for _, r := range out {
				if r == '\n' && keep {
					continue
				}
				if unicode.IsControl(r) || isBidiOrInvisible(r) {
					t.Fatalf("Sanitize(%q, %v) = %q keeps %U", s, keep, out, r)
				}
			}
			if !keep && strings.ContainsRune(out, '\n') {
				t.Fatalf("Line kept a newline: %q", out)
			}
		}
	})
}
