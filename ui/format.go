package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/mcpoke/mcpoke/internal/termtext"
)

// formatDuration renders a duration the same way everywhere: 0.0s to
// 59.9s with tenths, then 1m02s, then 1h02m.
func formatDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		d = d.Truncate(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		d = d.Truncate(time.Minute)
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// fit truncates s (which may hold styles) to w cells with an ellipsis and
// pads it to exactly w.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := textWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = textWidth(s)
	}
	if pad := w - sw; pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// clip truncates s to w cells with an ellipsis, without padding.
func clip(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if textWidth(s) > w {
		return ansi.Truncate(s, w, "…")
	}
	return s
}

// maxPretty bounds the JSON the detail pane lays out, so one huge result
// cannot stall the screen.
const maxPretty = 256 << 10

// prettyJSON indents raw JSON for the detail pane and makes it safe to
// print: JSON may carry bidi overrides and C1 controls unescaped.
func prettyJSON(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if len(raw) > maxPretty {
		return termtext.Line(string(raw[:maxPretty])) + fmt.Sprintf("… (%s in all)", byteSize(len(raw)))
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return termtext.Block(string(raw))
	}
	return termtext.Block(b.String())
}

// wrapLines splits text into lines no wider than w, hard-wrapping long
// ones at spaces where it can; it keeps styles intact.
func wrapLines(text string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if textWidth(line) <= w {
			out = append(out, line)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(line, w, ""), "\n")...)
	}
	return out
}

// padLines makes text exactly h lines of exactly w cells.
func padLines(lines []string, w, h int) string {
	var b strings.Builder
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(lines) {
			b.WriteString(fit(lines[i], w))
		} else {
			b.WriteString(strings.Repeat(" ", max(w, 0)))
		}
	}
	return b.String()
}

// stripStyles removes styles from s, to restyle it as a whole.
func stripStyles(s string) string { return ansi.Strip(s) }

func itoa(n int) string { return strconv.Itoa(n) }

// position turns a byte offset into a 1-based line and column.
func position(text string, offset int64) (line, col int) {
	line, col = 1, 1
	for i, r := range text {
		if int64(i) >= offset-1 {
			break
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

func asSyntaxError(err error, target **json.SyntaxError) bool { return errors.As(err, target) }

// timeZero is the zero time, named for readability at call sites.
var timeZero time.Time
