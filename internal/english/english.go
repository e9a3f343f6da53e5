// Package english words counts the way mcpoke's messages say them, in
// the CLI and the TUI alike.
package english

import "strconv"

// Plural says a count with its noun: "1 line", "2 lines", "0 lines".
// Nouns whose plural is not noun+"s" need their own wording.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Count says a count with the phrase for one or for many: "1 line that
// is not JSON", "2 lines that are not JSON". For phrases whose plural is
// not the last word plus "s".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Thousands writes n with commas between thousands: 10,000.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + Thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
