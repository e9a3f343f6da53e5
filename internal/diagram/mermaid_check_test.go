package diagram

import (
	"fmt"
	"regexp"
	"strings"
)

// This file is a checker for the subset of Mermaid's sequenceDiagram
// grammar the renderer emits, after the rules of Mermaid's own lexer
// (sequenceDiagram.jison): a statement ends at a newline or ;, a message
// or note text runs from the colon to the end of the statement and reads
// # as the start of an entity code (#35; #quot;), participants are
// declared before use, rect, loop, alt, opt and par blocks close with
// end (else only inside alt), and autonumber takes a start and a step,
// or off.

// mermaidMessage is one arrow the checker read, with the rects it is
// in, outermost first (indexes into mermaidDoc.rects).
type mermaidMessage struct {
	from, arrow, to, text string
	rects                 []int
}

// mermaidRect is a rect block: its colour, its first note, and the rect
// it is in (-1 for none).
type mermaidRect struct {
	fill, note string
	parent     int
}

// mermaidDoc is what the checker read of a diagram.
type mermaidDoc struct {
	participants []string
	messages     []mermaidMessage
	notes        []string
	rects        []mermaidRect
}

var (
	participantRE = regexp.MustCompile(`^participant ([A-Za-z][A-Za-z0-9_]*)(?: as (.+))?$`)
	noteRE        = regexp.MustCompile(`^Note (left of|right of|over) ([A-Za-z][A-Za-z0-9_]*)(?:,([A-Za-z][A-Za-z0-9_]*))?: (.+)$`)
	messageRE     = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_]*)(->>|-->>|->|-->|-x|--x|-\)|--\))([+-]?)([A-Za-z][A-Za-z0-9_]*): (.+)$`)
	blockRE       = regexp.MustCompile(`^(rect|loop|alt|opt|par|critical|break)(?: (.*))?$`)
	rectColourRE  = regexp.MustCompile(`^(?:rgb\(\s*\d{1,3},\s*\d{1,3},\s*\d{1,3}\s*\)|rgba\(\s*\d{1,3},\s*\d{1,3},\s*\d{1,3},\s*[01](?:\.\d+)?\s*\))$`)
	entityRE      = regexp.MustCompile(`^#(?:[A-Za-z]+|\d+);`)
	autonumberRE  = regexp.MustCompile(`^autonumber(?: \d+(?: \d+)?| off)?$`)
)

// checkMermaid parses a diagram and returns what it read, or the first
// line that breaks the grammar.
func checkMermaid(src string) (mermaidDoc, error) {
	var doc mermaidDoc
	lines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "sequenceDiagram" {
		return doc, fmt.Errorf("line 1: want sequenceDiagram, got %q", lines[0])
	}
	declared := map[string]bool{}
	var blocks []string
	var rects []int // the rect of each open block, -1 for other blocks
	inRects := func() []int {
		var in []int
		for _, r := range rects {
			if r >= 0 {
				in = append(in, r)
			}
		}
		return in
	}
	for n, raw := range lines[1:] {
		n += 2
		if strings.ContainsAny(raw, "\r\x00") {
			return doc, fmt.Errorf("line %d: a control character", n)
		}
		s := strings.TrimSpace(raw)
		if s == "" || strings.HasPrefix(s, "%%") {
			continue
		}
		// Only text may hold ;, as an entity code: a bare ; would end
		// the statement.
		head, text, hasText := strings.Cut(s, ": ")
		if strings.Contains(head, ";") || strings.Contains(head, "#") {
			return doc, fmt.Errorf("line %d: ; or # outside text: %q", n, s)
		}
		if hasText {
			if err := checkText(text); err != nil {
				return doc, fmt.Errorf("line %d: %v in %q", n, err, text)
			}
		}
		switch m := (struct{ p, no, msg, blk []string }{participantRE.FindStringSubmatch(s), noteRE.FindStringSubmatch(s), messageRE.FindStringSubmatch(s), blockRE.FindStringSubmatch(s)}); {
		case m.p != nil:
			if len(doc.messages) > 0 || len(doc.notes) > 0 {
				return doc, fmt.Errorf("line %d: participant after the first message", n)
			}
			declared[m.p[1]] = true
			doc.participants = append(doc.participants, m.p[1])
		case m.no != nil:
			for _, p := range []string{m.no[2], m.no[3]} {
				if p != "" && !declared[p] {
					return doc, fmt.Errorf("line %d: undeclared participant %q", n, p)
				}
			}
			if m.no[3] != "" && m.no[1] != "over" {
				return doc, fmt.Errorf("line %d: only a note over spans two participants", n)
			}
			doc.notes = append(doc.notes, m.no[4])
			if in := inRects(); len(in) > 0 && doc.rects[in[len(in)-1]].note == "" {
				doc.rects[in[len(in)-1]].note = m.no[4]
			}
		case m.msg != nil:
			if !declared[m.msg[1]] || !declared[m.msg[4]] {
				return doc, fmt.Errorf("line %d: undeclared participant in %q", n, s)
			}
			doc.messages = append(doc.messages, mermaidMessage{m.msg[1], m.msg[2], m.msg[4], m.msg[5], inRects()})
		case m.blk != nil:
			if m.blk[1] == "rect" && !rectColourRE.MatchString(m.blk[2]) {
				return doc, fmt.Errorf("line %d: rect needs an rgb() or rgba() colour: %q", n, s)
			}
			if strings.ContainsAny(m.blk[2], ";#") {
				return doc, fmt.Errorf("line %d: ; or # in a block label", n)
			}
			blocks = append(blocks, m.blk[1])
			if m.blk[1] == "rect" {
				parent := -1
				if in := inRects(); len(in) > 0 {
					parent = in[len(in)-1]
				}
				doc.rects = append(doc.rects, mermaidRect{fill: m.blk[2], parent: parent})
				rects = append(rects, len(doc.rects)-1)
			} else {
				rects = append(rects, -1)
			}
		case s == "else" || strings.HasPrefix(s, "else "):
			if len(blocks) == 0 || blocks[len(blocks)-1] != "alt" {
				return doc, fmt.Errorf("line %d: else outside alt", n)
			}
		case autonumberRE.MatchString(s): // numbering on, from N by M, or off
		case s == "end":
			if len(blocks) == 0 {
				return doc, fmt.Errorf("line %d: end without a block", n)
			}
			blocks, rects = blocks[:len(blocks)-1], rects[:len(rects)-1]
		default:
			return doc, fmt.Errorf("line %d: not a statement: %q", n, s)
		}
	}
	if len(blocks) > 0 {
		return doc, fmt.Errorf("%d block(s) not closed with end: %v", len(blocks), blocks)
	}
	return doc, nil
}

// checkText accepts message and note text: # only as an entity code, no
// bare ; < > (HTML), and something to show.
func checkText(t string) error {
	if strings.TrimSpace(t) == "" {
		return fmt.Errorf("empty text")
	}
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '#':
			m := entityRE.FindString(t[i:])
			if m == "" {
				return fmt.Errorf("# that starts no entity code at %d", i)
			}
			i += len(m) - 1
		case ';':
			return fmt.Errorf("a bare ; at %d", i)
		case '<', '>':
			return fmt.Errorf("HTML %q at %d", t[i], i)
		}
	}
	return nil
}
