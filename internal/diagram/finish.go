package diagram

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/termtext"
)

// timeoutReason starts the reason mcpoke's session cancels a request
// that timed out with: "timeout after 300ms", "timeout after 10m0s
// (maximum)".
const (
	timeoutReason = "timeout after "
	maximumSuffix = " (maximum)"
)

// noteTimeout reads the first cancel's reason: the session's own wording
// for a request that timed out (call --timeout) is all the transcript
// tells of it.
func (b *builder) noteTimeout(reason string) {
	rest, ok := strings.CutPrefix(reason, timeoutReason)
	if !ok {
		return
	}
	b.timedOut = true
	rest, b.timeoutMax = strings.CutSuffix(rest, maximumSuffix)
	if d, err := time.ParseDuration(rest); err == nil && d > 0 {
		b.timeout = d
	}
}

// streamClosedPrefix and streamClosedSuffix frame the HTTP transport's
// line for a response stream mcpoke closed: "stream of request 3 closed
// by mcpoke".
const (
	streamClosedPrefix = "stream of request "
	streamClosedSuffix = " closed by mcpoke"
)

// closedStream reads the id of the request whose stream an HTTP line
// says mcpoke closed.
func closedStream(line string) (string, bool) {
	rest, ok := strings.CutPrefix(line, streamClosedPrefix)
	if !ok {
		return "", false
	}
	id, ok := strings.CutSuffix(rest, streamClosedSuffix)
	if !ok {
		return "", false
	}
	id = compactID(json.RawMessage(id))
	return id, id != ""
}

// before reads the handshake for who the server is: initialize, or
// 2026-07-28's server/discover.
func (b *builder) before(it Item) {
	for _, m := range messages(it.Msg) {
		switch {
		case it.Dir == "out" && m.method == "server/discover" && m.id != "":
			b.discoverID = m.id
			var p struct {
				Meta struct {
					Version string `json:"io.modelcontextprotocol/protocolVersion"`
				} `json:"_meta"`
			}
			_ = json.Unmarshal(m.params, &p)
			b.discoverVersion = p.Meta.Version
		case it.Dir == "in" && m.isResponse() && m.id == b.discoverID && b.discoverID != "":
			var r struct {
				Meta struct {
					ServerInfo struct {
						Name    string `json:"name"`
						Version string `json:"version"`
					} `json:"io.modelcontextprotocol/serverInfo"`
				} `json:"_meta"`
			}
			_ = json.Unmarshal(m.result, &r)
			b.server = clip(strings.TrimSpace(r.Meta.ServerInfo.Name+" "+r.Meta.ServerInfo.Version), maxMethodRunes)
			if b.discoverVersion != "" {
				b.server += " · protocol " + clip(b.discoverVersion, maxMethodRunes)
			}
		case it.Dir == "out" && m.method == "initialize" && m.id != "":
			b.initID = m.id
		case it.Dir == "in" && m.isResponse() && m.id == b.initID && b.initID != "":
			var r struct {
				ProtocolVersion string `json:"protocolVersion"`
				ServerInfo      struct {
					Name    string `json:"name"`
					Version string `json:"version"`
				} `json:"serverInfo"`
			}
			_ = json.Unmarshal(m.result, &r)
			name := strings.TrimSpace(r.ServerInfo.Name + " " + r.ServerInfo.Version)
			b.server = clip(name, maxMethodRunes)
			if r.ProtocolVersion != "" {
				b.server += " · protocol " + clip(r.ProtocolVersion, maxMethodRunes)
			}
		}
	}
}

// ms is d in the diagram's milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// life finishes the model: arrows up to the last one about the request,
// progress runs collapsed, the spans and the outcome. It leaves b as it
// was, so a Follower can draw again after more items.
func (b *builder) life(o Options) Life {
	maxRun := o.MaxRun
	if maxRun <= 0 {
		maxRun = DefaultMaxRun
	}
	// A run drawn whole is shorter than a folded one: folding never shows.
	maxRun = min(maxRun, b.foldAt-1)
	l := Life{Title: b.title, Server: b.server, ID: b.id, Origin: b.origin, Live: o.Live}
	if b.relayed {
		l.Client = "host"
	}
	own := b.arrows[:b.lastOwn+1]
	l.Arrows = collapse(own, maxRun)
	end := b.end
	if len(own) > 0 {
		end = max(end, own[len(own)-1].Until)
	}
	if o.Live {
		end = max(end, o.Now-b.start)
	}
	var settle *Span
	// The session settles a request it cancelled; a timeout is final at
	// once, and a task ends with tasks/cancel's answer.
	if b.cancelled && o.Settle > 0 && b.origin == Client && !b.timedOut && !b.byTask {
		settle = &Span{Kind: SpanSettle, From: b.cancelAt, To: b.cancelAt + ms(o.Settle),
			Label: "settle window " + Human(ms(o.Settle)) + ": cancelling, watching what the server does",
			End:   "settled: cancelled"}
		if o.Live && settle.To > end {
			settle.To, settle.Open, settle.End = end, true, ""
		}
		end = max(end, settle.To)
	}
	if t := b.timeoutSpan(o, end); t != nil {
		l.Spans = append(l.Spans, *t)
	}
	if b.cancelled {
		label := "after the cancel: traffic for request " + termtext.Line(b.id) + " is ignored"
		if b.relayed {
			label = "after the cancel: traffic for request " + termtext.Line(b.id) + " went on to its sender"
		}
		if o.WaitLate > 0 {
			label += ", listening up to " + Human(ms(o.WaitLate)) + " (--wait-late)"
		}
		l.Spans = append(l.Spans, Span{Kind: SpanAfter, From: b.cancelAt, To: end, Label: label, Open: o.Live})
	}
	if settle != nil {
		l.Spans = append(l.Spans, *settle)
	}
	l.End = end
	l.Outcome = b.outcome(o, end)
	return l
}

// timeoutSpan is the wait that ended in the timeout's cancel, or, for a
// request still in flight, the wait running now; nil when neither.
func (b *builder) timeoutSpan(o Options, end float64) *Span {
	switch {
	case b.timedOut && b.timeout > 0:
		d := ms(b.timeout)
		label := "timeout " + Human(d) + ": no answer or progress in that time"
		if b.timeoutMax {
			label = "maximum timeout " + Human(d) + ": no answer in that time, progress or not"
		}
		// The timer ran from the request, or from the progress that last
		// restarted it; the maximum's from the request.
		from := b.lastActivity
		if b.timeoutMax {
			from = 0
		}
		return &Span{Kind: SpanTimeout, From: from, To: b.cancelAt, Label: label, End: "timed out"}
	case o.Live && !b.cancelled && !b.answered && o.Timeout > 0 && b.origin == Client:
		deadline := b.lastActivity + ms(o.Timeout)
		s := &Span{Kind: SpanTimeout, From: b.lastActivity, To: deadline,
			Label: "timeout " + Human(ms(o.Timeout)) + ": cancelled at " + offset(deadline) + " unless an answer or progress comes",
			End:   "timed out"}
		if deadline > end {
			s.To, s.Open, s.End = end, true, ""
		}
		return s
	}
	return nil
}

func (b *builder) outcome(o Options, end float64) string {
	var s string
	answer, late := b.arrowAt(b.answer), b.arrowAt(b.lateAnswer)
	switch {
	case answer != nil && answer.Kind == KindError:
		s = "failed at " + offset(answer.At) + ": " + answer.Label
	case answer != nil:
		s = b.answeredWord() + " at " + offset(answer.At)
		if strings.Contains(answer.Label, "isError") {
			s += ", with a tool error (isError)"
		}
	case b.cancelled && o.Live:
		s = "cancelling since " + offset(b.cancelAt) + " · watching what the server does, now " + offset(end)
	case b.cancelled && late != nil:
		s = b.cancelWord() + " at " + offset(b.cancelAt) + " · the server answered anyway, " +
			Human(late.AfterCancel) + " after the cancel"
	case b.cancelled && b.streamClosed:
		// Nothing can arrive on a closed stream: silence says nothing.
		s = b.cancelWord() + " at " + offset(b.cancelAt) + " · stream closed, so a late answer could not be seen"
	case b.cancelled:
		s = b.cancelWord() + " at " + offset(b.cancelAt) + " · no response, as the spec asks"
	case o.Live:
		return "in flight · no answer yet, now " + offset(end)
	default:
		return "no answer in the transcript"
	}
	if b.origin == Server && b.cancelled {
		s = strings.Replace(s, "the server answered anyway", "mcpoke answered anyway", 1)
	}
	if n := b.ownIgnored; b.cancelled && n > 0 && !(n == 1 && late != nil) {
		word := "ignored"
		if b.relayed {
			word = "passed on"
		}
		s += fmt.Sprintf(" · %d frame%s after the cancel %s", n, plural(n), word)
	}
	return s
}

func (b *builder) arrowAt(i int) *Arrow {
	if i < 0 || i > b.lastOwn {
		return nil
	}
	return &b.arrows[i]
}

// answeredWord is how an answered request ended.
func (b *builder) answeredWord() string {
	if b.origin == Server {
		return "answered by mcpoke"
	}
	return "completed"
}

// cancelWord is how the request ended on our side.
func (b *builder) cancelWord() string {
	switch {
	case b.origin == Server:
		return "cancelled by the server"
	case b.timedOut:
		return "timed out and cancelled"
	}
	return "cancelled"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// clip makes server text short and safe: cut first, so that no escape
// of a hidden character is cut in half, and hidden text shows whole.
func clip(s string, n int) string { return termtext.Line(termtext.ClipRunes(s, n)) }
