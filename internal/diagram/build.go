package diagram

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/termtext"
)

// Options tune Build.
type Options struct {
	// Request picks the request by its id as JSON text: 3 and "3" are
	// different requests. "" picks the last tools/call.
	Request string
	// WaitLate is how long mcpoke listened for late traffic after the
	// cancel (call --wait-late), for the span's label; 0 when unknown.
	WaitLate time.Duration
	// MaxRun is the longest run of progress drawn arrow by arrow; longer
	// runs keep their first and last and collapse the rest into one
	// counted arrow. 0 means DefaultMaxRun.
	MaxRun int
}

// DefaultMaxRun keeps a short run of progress whole.
const DefaultMaxRun = 6

// Bounds on server text in labels: a diagram is a picture, the
// transcript has the rest.
const (
	maxMessageRunes = 60
	maxReasonRunes  = 80
	maxMethodRunes  = 40
)

// timeoutReason starts the reason mcpoke's session cancels a request
// that timed out with: "timeout after 300ms".
const timeoutReason = "timeout after "

// ErrNoRequest is returned when the transcript has no request to draw.
var ErrNoRequest = errors.New("no such request in the transcript")

// Request is one of our requests in a transcript.
type Request struct {
	ID     string // JSON text
	Method string
	Tool   string
	T      float64
}

// Requests lists the requests mcpoke sent, in order, with what Build
// needs to pick one.
func Requests(tr Transcript) []Request {
	var out []Request
	for _, it := range tr.Items {
		if it.Dir != "out" {
			continue
		}
		for _, m := range messages(it.Msg) {
			if m.isRequest() {
				out = append(out, Request{ID: m.id, Method: m.method, Tool: paramsOf(m).Name, T: it.T})
			}
		}
	}
	return out
}

// DefaultRequest is the id Build draws without Options.Request: the last
// tools/call, else the last request that is not the handshake or a ping.
func DefaultRequest(reqs []Request) (string, bool) {
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Method == "tools/call" {
			return reqs[i].ID, true
		}
	}
	for i := len(reqs) - 1; i >= 0; i-- {
		if m := reqs[i].Method; m != "initialize" && m != "ping" {
			return reqs[i].ID, true
		}
	}
	return "", false
}

// Build draws the life of one request from a transcript.
func Build(tr Transcript, o Options) (Life, error) {
	id := o.Request
	if id == "" {
		var ok bool
		if id, ok = DefaultRequest(Requests(tr)); !ok {
			return Life{}, fmt.Errorf("%w: it has no request but initialize and ping", ErrNoRequest)
		}
	}
	b := builder{id: id, startAt: -1, maxRun: o.MaxRun, serverReqs: map[string]string{}, taskCancels: map[string]bool{}}
	if b.maxRun <= 0 {
		b.maxRun = DefaultMaxRun
	}
	// The last request sent with the id is the one drawn: ids may be
	// reused across sessions appended to one file.
	for i, it := range tr.Items {
		if it.Dir != "out" {
			continue
		}
		for _, m := range messages(it.Msg) {
			if m.isRequest() && m.id == id {
				b.startAt = i
			}
		}
	}
	if b.startAt < 0 {
		return Life{}, fmt.Errorf("%w: no request with id %s was sent", ErrNoRequest, termtext.Line(id))
	}
	for i, it := range tr.Items {
		if i < b.startAt {
			b.before(it)
			continue
		}
		b.item(it)
		b.end = it.T - b.start
	}
	return b.life(o), nil
}

// builder follows one request through the transcript.
type builder struct {
	id      string
	startAt int     // index of the request's line
	start   float64 // its t
	maxRun  int

	title, server string
	token         string // the request's progressToken as JSON text
	taskID        string
	cancelAt      float64
	cancelled     bool
	timedOut      bool // the cancel was mcpoke's timeout
	answered      bool
	answer        *Arrow // the answer that counted, if any
	lateAnswer    *Arrow
	// lastOwn is the index in arrows of the last arrow about the request
	// itself: server requests after it belong to nothing drawn.
	lastOwn     int
	serverReqs  map[string]string // server request id -> method
	taskCancels map[string]bool   // our tasks/cancel ids
	arrows      []Arrow
	initID      string
	// end is the transcript's last time: after a cancel, how long it
	// shows that nothing more came.
	end float64
}

// before reads the handshake for who the server is.
func (b *builder) before(it Item) {
	for _, m := range messages(it.Msg) {
		switch {
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

// item reads one line at or after the request.
func (b *builder) item(it Item) {
	for _, m := range messages(it.Msg) {
		switch it.Dir {
		case "out":
			b.outbound(it, m)
		case "in":
			b.inbound(it, m)
		}
	}
}

func (b *builder) outbound(it Item, m message) {
	p := paramsOf(m)
	switch {
	case m.isRequest() && m.id == b.id && b.title == "":
		b.start = it.T
		label := clip(m.method, maxMethodRunes)
		if p.Name != "" {
			label += " " + clip(p.Name, maxMethodRunes)
		}
		b.title = label + " · request " + termtext.Line(m.id)
		if tok := compactID(p.Meta.ProgressToken); tok != "" {
			b.token = tok
		}
		if p.Task != nil {
			label += " (task)"
		}
		b.own(it, Arrow{From: Client, Kind: KindRequest, Label: label + " (id " + termtext.Line(m.id) + ")"})
	case m.method == "notifications/cancelled" && compactID(p.RequestID) == b.id:
		if !b.cancelled {
			// The session's own wording for a request that timed out
			// (call --timeout): the transcript has nothing else to tell.
			b.timedOut = strings.HasPrefix(p.Reason, timeoutReason)
		}
		b.cancel(it)
		label := "notifications/cancelled (id " + termtext.Line(b.id) + ")"
		if p.Reason != "" {
			label += ` "` + clip(p.Reason, maxReasonRunes) + `"`
		}
		b.own(it, Arrow{From: Client, Kind: KindCancel, Label: label})
	case m.isRequest() && m.method == "tasks/cancel" && b.taskID != "" && p.TaskID == b.taskID:
		b.cancel(it)
		b.taskCancels[m.id] = true
		b.own(it, Arrow{From: Client, Kind: KindTaskCancel, Label: "tasks/cancel task " + clip(p.TaskID, maxMethodRunes) + " (id " + termtext.Line(m.id) + ")"})
	case (m.isResponse() || m.isError()) && b.serverReqs[m.id] != "":
		b.add(it, Arrow{From: Client, Kind: KindReply, Label: answerLabel(m, "") + " (id " + termtext.Line(m.id) + ")"})
	}
}

func (b *builder) inbound(it Item, m message) {
	p := paramsOf(m)
	switch {
	case (m.isResponse() || m.isError()) && m.id == b.id:
		b.answerArrow(it, m)
	case (m.isResponse() || m.isError()) && b.taskCancels[m.id]:
		b.own(it, Arrow{From: Server, Kind: KindReply, Label: "tasks/cancel " + answerLabel(m, "") + " (id " + termtext.Line(m.id) + ")"})
	case m.method == "notifications/progress" && b.token != "" && compactID(p.Token) == b.token:
		b.own(it, b.progressArrow(it, p))
	case m.method == "notifications/cancelled" && b.serverReqs[compactID(p.RequestID)] != "":
		label := "notifications/cancelled (id " + termtext.Line(compactID(p.RequestID)) + ")"
		if p.Reason != "" {
			label += ` "` + clip(p.Reason, maxReasonRunes) + `"`
		}
		b.add(it, Arrow{From: Server, Kind: KindCancel, Label: label})
	case m.isRequest():
		b.serverReqs[m.id] = m.method
		b.add(it, Arrow{From: Server, Kind: KindServerRequest, Label: clip(m.method, maxMethodRunes) + " (id " + termtext.Line(m.id) + ")"})
	}
}

// answerArrow draws a response or error to the request.
func (b *builder) answerArrow(it Item, m message) {
	kind := KindResponse
	if m.isError() {
		kind = KindError
	}
	sum := summarize(m.result)
	task := ""
	if sum.taskID != "" && b.taskID == "" {
		b.taskID = sum.taskID
		task = "task " + clip(sum.taskID, maxMethodRunes) + " " + clip(sum.status, maxMethodRunes)
	}
	a := Arrow{From: Server, Kind: kind, Label: answerLabel(m, task)}
	if b.answered && task == "" && !b.cancelled {
		a.Label = "duplicate " + a.Label
	}
	b.own(it, a)
	last := &b.arrows[len(b.arrows)-1]
	switch {
	case task != "":
		// A created task answers nothing yet: the work goes on.
	case last.Ignored && b.lateAnswer == nil:
		b.lateAnswer = last
	case !b.answered && !last.Ignored:
		b.answered = true
		b.answer = last
	}
}

// answerLabel says what a response is: "result", "result (isError)",
// "error -32601 Method not found", or the task it created.
func answerLabel(m message, task string) string {
	if m.isError() {
		e := errorOf(m)
		label := "error"
		if e.code != "" {
			label += " " + e.code
		}
		if e.message != "" {
			label += " " + clip(e.message, maxMessageRunes)
		}
		return label
	}
	switch sum := summarize(m.result); {
	case task != "":
		return "result: " + task
	case sum.isError:
		return "result (isError)"
	case sum.status != "":
		return "result: " + clip(sum.status, maxMethodRunes)
	}
	return "result"
}

func (b *builder) progressArrow(it Item, p requestParams) Arrow {
	value := number(p.Progress)
	text := value
	if value == "" {
		text = "(no value)"
	} else if total := number(p.Total); total != "" {
		text += "/" + total
	}
	label := "progress " + text
	if p.Message != "" {
		label += ` "` + clip(p.Message, maxMessageRunes) + `"`
	}
	return Arrow{From: Server, Kind: KindProgress, Label: label, value: value}
}

// cancel notes the first cancel's time: traffic after it is ignored.
func (b *builder) cancel(it Item) {
	if !b.cancelled {
		b.cancelled, b.cancelAt = true, it.T-b.start
	}
}

// own adds an arrow about the request itself.
func (b *builder) own(it Item, a Arrow) {
	b.add(it, a)
	b.lastOwn = len(b.arrows) - 1
}

// add stamps an arrow with its time and line, and whether it came after
// the cancel, and keeps it.
func (b *builder) add(it Item, a Arrow) {
	a.At, a.Until, a.Count, a.Lines = it.T-b.start, it.T-b.start, 1, []int{it.Line}
	if b.cancelled && a.From == Server && a.Kind != KindServerRequest && a.Kind != KindReply && a.Kind != KindCancel {
		a.Ignored, a.AfterCancel = true, a.At-b.cancelAt
	}
	if a.Ignored {
		a.Label += " · ignored (cancel +" + Human(a.AfterCancel) + ")"
	}
	b.arrows = append(b.arrows, a)
}

// life finishes the model: arrows up to the last one about the request,
// progress runs collapsed, the span after the cancel and the outcome.
func (b *builder) life(o Options) Life {
	l := Life{Title: b.title, Server: b.server, ID: b.id}
	l.Arrows = collapse(b.arrows[:b.lastOwn+1], b.maxRun)
	if b.cancelled {
		label := "after the cancel: traffic for request " + termtext.Line(b.id) + " is ignored"
		if o.WaitLate > 0 {
			label += ", listening up to " + Human(float64(o.WaitLate)/float64(time.Millisecond)) + " (--wait-late)"
		}
		l.After = &Span{From: b.cancelAt, To: max(b.end, b.arrows[b.lastOwn].Until), Label: label}
	}
	l.Outcome = b.outcome()
	return l
}

func (b *builder) outcome() string {
	ignored := 0
	for _, a := range b.arrows[:b.lastOwn+1] {
		if a.Ignored {
			ignored++
		}
	}
	var s string
	switch {
	case b.answer != nil && b.answer.Kind == KindError:
		s = "failed at " + offset(b.answer.At) + ": " + b.answer.Label
	case b.answer != nil:
		s = "completed at " + offset(b.answer.At)
		if strings.Contains(b.answer.Label, "isError") {
			s += ", with a tool error (isError)"
		}
	case b.cancelled && b.lateAnswer != nil:
		s = b.cancelWord() + " at " + offset(b.cancelAt) + " · the server answered anyway, " +
			Human(b.lateAnswer.AfterCancel) + " after the cancel"
	case b.cancelled:
		s = b.cancelWord() + " at " + offset(b.cancelAt) + " · no response, as the spec asks"
	default:
		return "no answer in the transcript"
	}
	if b.cancelled && ignored > 0 && !(ignored == 1 && b.lateAnswer != nil) {
		s += fmt.Sprintf(" · %d frame%s after the cancel ignored", ignored, plural(ignored))
	}
	return s
}

// cancelWord is how the request ended on our side.
func (b *builder) cancelWord() string {
	if b.timedOut {
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
