package cli

import (
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpMaxWidth is the widest help fang draws, whatever the terminal.
const helpMaxWidth = 120

// flagSpelling matches an optional flag spelled out in a Use line
// ("[--json]", "[-n 2000]", "[--resource URI]...", "[flags]"), but not
// "[-- CMD ARGS...]".
var flagSpelling = regexp.MustCompile(`\s*\[(-[^-\s][^\]]*|--[^\s\]][^\]]*|flags)\](\.\.\.)?`)

// tidyHelp keeps --help readable. fang lines commands and flags up in one
// column as wide as the widest key and never wraps a description, so a
// Use line that spells out its flags pushed every description past the
// edge of the screen, where the terminal broke it mid-word. Each Use
// keeps its name, arguments and "[-- CMD ARGS...]" (the FLAGS section
// lists the flags, with their defaults), and every flag's description is
// wrapped to the room fang leaves it.
func tidyHelp(root *cobra.Command) {
	space := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c != root {
			c.Use = strings.TrimSpace(flagSpelling.ReplaceAllString(c.Use, ""))
		}
		for _, sc := range c.Commands() {
			walk(sc)
			if !sc.Hidden {
				// fang's key: the Use, " [command]" when it has some,
				// " [--flags]", and two spaces.
				key := ansi.StringWidth(sc.Use) + len(" [--flags]") + 2
				if sc.HasAvailableSubCommands() {
					key += len(" [command]")
				}
				space = max(space, key)
			}
		}
		eachFlag(c, func(f *pflag.Flag) { space = max(space, len("-x --")+len(f.Name)+2) })
	}
	walk(root)
	room := helpWidth() - 4 - space // fang's left padding is 4
	if room < 24 {
		return // too narrow to help: the terminal wraps as before
	}
	seen := map[*pflag.Flag]bool{}
	var wrap func(c *cobra.Command)
	wrap = func(c *cobra.Command) {
		eachFlag(c, func(f *pflag.Flag) {
			if !seen[f] {
				seen[f] = true
				f.Usage = wrapUsage(f, room)
			}
		})
		for _, sc := range c.Commands() {
			wrap(sc)
		}
	}
	wrap(root)
}

// eachFlag visits the flags a command's help lists: its own and those it
// inherits.
func eachFlag(c *cobra.Command, f func(*pflag.Flag)) {
	c.LocalFlags().VisitAll(f)
	c.InheritedFlags().VisitAll(f)
}

// wrapUsage wraps a flag's description to w columns, leaving room on the
// last line for the " (default)" fang appends.
func wrapUsage(f *pflag.Flag, w int) string {
	if strings.Contains(f.Usage, "\n") {
		return f.Usage // laid out by hand
	}
	text := wrapWords(f.Usage, w)
	if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "[]" {
		lines := strings.Split(text, "\n")
		if ansi.StringWidth(lines[len(lines)-1])+len(" ("+def+")") > w {
			text += "\n"
		}
	}
	return text
}

// helpWidth is the width fang draws the help at.
func helpWidth() int {
	if s := os.Getenv("__FANG_TEST_WIDTH"); s != "" {
		if w, err := strconv.Atoi(s); err == nil {
			return w
		}
	}
	w, _, err := term.GetSize(os.Stdout.Fd())
	if err != nil {
		return helpMaxWidth
	}
	return min(w, helpMaxWidth)
}

// wrapWords wraps text at spaces only (a version like 2025-11-25 or
// accept-defaults stays whole), w columns wide; a longer word has its
// own line.
func wrapWords(text string, w int) string {
	var b strings.Builder
	n := 0
	for _, word := range strings.Fields(text) {
		ww := ansi.StringWidth(word)
		switch {
		case n == 0:
		case n+1+ww > w:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += ww
	}
	return b.String()
}
