package diagram

import (
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
	// Incoming says Request is the id of a request the server sent
	// (elicitation/create, sampling/createMessage): the diagram is then
	// of the server's request, and mcpoke's answer to it.
	Incoming bool
	// WaitLate is how long mcpoke listened for late traffic after the
	// cancel (call --wait-late), for the span's label; 0 when unknown.
	WaitLate time.Duration
	// MaxRun is the longest run of progress drawn arrow by arrow; longer
	// runs keep their first and last and collapse the rest into one
	// counted arrow. 0 means DefaultMaxRun.
	MaxRun int
	// Settle is the session's settle window (--settle): after a cancel,
	// how long the request stayed cancelling. 0 when there was none or it
	// is not known; a transcript does not say.
	Settle time.Duration
	// Timeout is the request's timeout, restarted by progress, drawn as
	// the wait still running for a Live request. A request that timed
	// out shows its timeout whatever this says: the cancel's reason
	// gives it.
	Timeout time.Duration
	// Live says the request is still in flight (the TUI, while it runs):
	// the drawing runs to Now, in the transcript's milliseconds, and
	// spans still running are drawn open.
	Live bool
	Now  float64
	// Relayed says the transcript is mcpoke proxy's: the client lane is
	// the host, and traffic after a cancel went on to it, not ignored.
	Relayed bool
	// Session is the host session of the request in a proxy's transcript
	// over HTTP (s1, s2, ...): sessions may reuse ids, and the others'
	// traffic is not drawn. For Build, "" takes the session of the last
	// request with the id, whichever it is.
	Session string
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

// ErrNoRequest is returned when the transcript has no request to draw.
var ErrNoRequest = errors.New("no such request in the transcript")

// Request is one of our requests in a transcript.
type Request struct {
	ID      string // JSON text
	Session string // its host session in a proxy's transcript over HTTP
	Method  string
	Tool    string
	T       float64
	// Retry is a multi round-trip request's retry (2026-07-28): drawn
	// as a round of the request it retries.
	Retry bool
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
				p := paramsOf(m)
				out = append(out, Request{ID: m.id, Session: it.Session, Method: m.method, Tool: p.Name, T: it.T,
					Retry: p.RequestState != nil || p.InputResponses != nil})
			}
		}
	}
	return out
}

// DefaultRequest is the id Build draws without Options.Request: the last
// tools/call that is not a retry, else the last request that is not the handshake (initialize,
// server/discover) or a ping.
func DefaultRequest(reqs []Request) (string, bool) {
	r, ok := defaultRequest(reqs)
	return r.ID, ok
}

func defaultRequest(reqs []Request) (Request, bool) {
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Method == "tools/call" && !reqs[i].Retry {
			return reqs[i], true
		}
	}
	for i := len(reqs) - 1; i >= 0; i-- {
		if m := reqs[i].Method; m != "initialize" && m != "ping" && m != "server/discover" {
			return reqs[i], true
		}
	}
	return Request{}, false
}

// Build draws the life of one request from a transcript.
func Build(tr Transcript, o Options) (Life, error) {
	if o.Request == "" {
		if o.Incoming {
			return Life{}, fmt.Errorf("%w: which of the server's requests? give its id", ErrNoRequest)
		}
		r, ok := defaultRequest(Requests(tr))
		if !ok {
			return Life{}, fmt.Errorf("%w: it has no request but initialize and ping", ErrNoRequest)
		}
		o.Request, o.Session = r.ID, r.Session
	}
	f := NewFollower(o)
	// The last request sent with the id is the one drawn: ids may be
	// reused across sessions appended to one file, or by the host
	// sessions of a proxy over HTTP.
	startAt := -1
	for i, it := range tr.Items {
		if it.Dir != f.b.origin.dir() || o.Session != "" && it.Session != o.Session {
			continue
		}
		for _, m := range messages(it.Msg) {
			if m.isRequest() && m.id == o.Request {
				startAt = i
			}
		}
	}
	if startAt < 0 {
		who := "was sent"
		if o.Incoming {
			who = "came from the server"
		}
		if o.Session != "" {
			who += " in host session " + termtext.Line(o.Session)
		}
		return Life{}, fmt.Errorf("%w: no request with id %s %s", ErrNoRequest, termtext.Line(o.Request), who)
	}
	f.session = tr.Items[startAt].Session
	for _, it := range tr.Items[:startAt] {
		if it.Session == f.session {
			f.b.before(it)
		}
	}
	f.Add(tr.Items[startAt:]...)
	l, _ := f.Life(o)
	return l, nil
}

// Follower builds one request's life from transcript items as they
// come, so a live view reads each item once however long it watches.
// It is not safe for concurrent use.
type Follower struct {
	b       builder
	session string // Options.Session: the traffic of other sessions is skipped
}

// NewFollower follows the request o.Request (o.Incoming: one the server
// sent). Items before the request are read for the handshake only; the
// first request with the id starts the drawing.
func NewFollower(o Options) *Follower {
	origin := Client
	if o.Incoming {
		origin = Server
	}
	return &Follower{session: o.Session, b: builder{id: o.Request, origin: origin, relayed: o.Relayed, answer: -1, lateAnswer: -1, lastOwn: -1, foldAt: foldAt,
		peerReqs: map[string]*peerRequest{}, taskReqs: map[string]string{}, tokens: map[string]bool{}, rounds: map[string]bool{}}}
}

// Add reads items, in transcript order.
func (f *Follower) Add(items ...Item) {
	for _, it := range items {
		if it.Session == f.session {
			f.b.item(it)
		}
	}
}

// Found reports whether the request has been seen.
func (f *Follower) Found() bool { return f.b.found }

// Start is the request's time in the transcript, once found.
func (f *Follower) Start() float64 { return f.b.start }

// Life draws what the follower has read, with o's drawing options (the
// request and direction are NewFollower's); false before the request.
func (f *Follower) Life(o Options) (Life, bool) {
	if !f.b.found {
		return Life{}, false
	}
	return f.b.life(o), true
}

// peerRequest is a request the other side sent while ours ran.
type peerRequest struct {
	method      string
	cancelled   bool
	cancelledAt float64
}

// builder follows one request through the transcript.
type builder struct {
	// relayed: Options.Relayed.
	relayed bool
	id      string
	origin  Lane // who sent the request
	found   bool
	start   float64 // the request's t

	title, server string
	method, tool  string
	tokens        map[string]bool // progressTokens, as JSON text, of the request and its retries
	// rounds are the retries of a multi round-trip request (2026-07-28),
	// by id; retry says the server asked for one, with state to echo.
	rounds     map[string]bool
	retry      bool
	retryState *string
	taskID     string
	cancelAt   float64
	cancelled  bool
	timedOut   bool          // the cancel was mcpoke's timeout
	timeout    time.Duration // and its duration, from the reason
	timeoutMax bool          // it was --max-timeout's
	byTask     bool          // the first cancel was tasks/cancel
	// streamClosed: mcpoke closed the request's HTTP stream, so an answer
	// after it could not reach mcpoke to be seen.
	streamClosed bool
	answered     bool
	answer       int // index in arrows of the answer that counted, or -1
	lateAnswer   int // of the first answer after the cancel, or -1
	// lastOwn is the index in arrows of the last arrow about the request
	// itself: other requests after it belong to nothing drawn.
	lastOwn int
	// lastActivity is when the request or its latest progress came: a
	// timeout restarted by progress counts from there.
	lastActivity float64
	ownIgnored   int
	foldAt       int                     // see fold
	peerReqs     map[string]*peerRequest // by id
	taskReqs     map[string]string       // the origin's tasks/* requests about the task: id -> method
	arrows       []Arrow
	initID       string
	// discoverID and discoverVersion are server/discover's (2026-07-28).
	discoverID, discoverVersion string
	// end is the last item's time: after a cancel, how long the
	// transcript shows that nothing more came.
	end float64
}

// dir is the transcript direction of what l sends.
func (l Lane) dir() string {
	if l == Client {
		return "out"
	}
	return "in"
}

// laneOf is who sent an item; false for stderr and unknown lines.
func laneOf(it Item) (Lane, bool) {
	switch it.Dir {
	case "out", "http": // HTTP lines are mcpoke's side of the connection
		return Client, true
	case "in":
		return Server, true
	}
	return 0, false
}

// item reads one line.
func (b *builder) item(it Item) {
	if !b.found {
		if !b.isStart(it) {
			b.before(it)
			return
		}
		b.found, b.start = true, it.T
	}
	b.end = max(b.end, it.T-b.start)
	if it.Dir == "http" {
		b.httpLine(it)
		return
	}
	lane, ok := laneOf(it)
	if !ok {
		return
	}
	for _, m := range messages(it.Msg) {
		if lane == b.origin {
			b.byOrigin(it, m)
		} else {
			b.byPeer(it, m)
		}
	}
}

// isStart reports whether it carries the request.
func (b *builder) isStart(it Item) bool {
	if it.Dir != b.origin.dir() {
		return false
	}
	for _, m := range messages(it.Msg) {
		if m.isRequest() && m.id == b.id {
			return true
		}
	}
	return false
}

// byOrigin reads a message from whoever sent the request.
func (b *builder) byOrigin(it Item, m message) {
	p := paramsOf(m)
	switch {
	case m.isRequest() && m.id == b.id && b.title == "":
		b.request(it, m, p)
	case m.isRequest() && b.retry && m.method == b.method && p.Name == b.tool &&
		(b.retryState != nil && p.RequestState != nil && *p.RequestState == *b.retryState || b.retryState == nil && p.InputResponses != nil):
		b.round(it, m, p)
	case m.method == "notifications/cancelled" && b.isOwnID(compactID(p.RequestID)) && b.title != "":
		if !b.cancelled && b.origin == Client {
			b.noteTimeout(p.Reason)
		}
		b.cancel(it)
		b.own(it, Arrow{From: b.origin, Kind: KindCancel, Label: "notifications/cancelled (id " + termtext.Line(compactID(p.RequestID)) + ")" + reasonText(p.Reason)})
	case m.isRequest() && m.method == "tasks/cancel" && b.taskID != "" && p.TaskID == b.taskID:
		b.byTask = b.byTask || !b.cancelled
		b.cancel(it)
		b.taskReqs[m.id] = m.method
		b.own(it, Arrow{From: b.origin, Kind: KindTaskCancel, Label: "tasks/cancel task " + clip(p.TaskID, maxMethodRunes) + " (id " + termtext.Line(m.id) + ")"})
	case m.isRequest() && (m.method == "tasks/get" || m.method == "tasks/result") && b.taskID != "" && p.TaskID == b.taskID:
		b.taskReqs[m.id] = m.method
		b.own(it, Arrow{From: b.origin, Kind: KindTaskPoll, Label: m.method + " (id " + termtext.Line(m.id) + ")"})
	case (m.isResponse() || m.isError()) && b.peerReqs[m.id] != nil:
		pr := b.peerReqs[m.id]
		a := Arrow{From: b.origin, Kind: KindReply, Label: answerLabel(m, "") + " (id " + termtext.Line(m.id) + ")"}
		if pr.cancelled {
			// The spec asks the receiver of a cancel not to answer: the
			// other side ignores this one.
			a.Ignored, a.AfterCancel = true, it.T-b.start-pr.cancelledAt
			a.Label += " · after its cancel (+" + Human(a.AfterCancel) + ")"
		}
		b.add(it, a, false)
	}
}

// request draws the request itself.
func (b *builder) request(it Item, m message, p requestParams) {
	label := clip(m.method, maxMethodRunes)
	if p.Name != "" {
		label += " " + clip(p.Name, maxMethodRunes)
	}
	b.title = label + " · request " + termtext.Line(m.id)
	if it.Session != "" {
		b.title = label + " · request " + termtext.Line(it.Session+":"+m.id) // as the card names it
	}
	if b.origin == Server {
		b.title += " from the server"
	}
	b.method, b.tool = m.method, p.Name
	if tok := compactID(p.Meta.ProgressToken); tok != "" {
		b.tokens[tok] = true
	}
	if p.Task != nil {
		label += " (task)"
	}
	b.own(it, Arrow{From: b.origin, Kind: KindRequest, Label: label + " (id " + termtext.Line(m.id) + ")"})
}

// isOwnID reports whether id is the request's, or one of its retries'.
func (b *builder) isOwnID(id string) bool { return id != "" && (id == b.id || b.rounds[id]) }

// round draws the retry of a multi round-trip request: the same
// request again, with the input the server asked for.
func (b *builder) round(it Item, m message, p requestParams) {
	b.retry = false
	b.rounds[m.id] = true
	if tok := compactID(p.Meta.ProgressToken); tok != "" {
		b.tokens[tok] = true
	}
	label := clip(m.method, maxMethodRunes)
	if p.Name != "" {
		label += " " + clip(p.Name, maxMethodRunes)
	}
	label += fmt.Sprintf(", round %d", len(b.rounds)+1)
	if p.InputResponses != nil {
		label += " with inputResponses"
	}
	b.own(it, Arrow{From: b.origin, Kind: KindRequest, Label: label + " (id " + termtext.Line(m.id) + ")"})
}

// byPeer reads a message from the side the request went to.
func (b *builder) byPeer(it Item, m message) {
	p := paramsOf(m)
	peer := b.origin.other()
	switch {
	case (m.isResponse() || m.isError()) && b.isOwnID(m.id):
		b.answerArrow(it, m, "", "")
	case (m.isResponse() || m.isError()) && b.taskReqs[m.id] == "tasks/result":
		// The task's own answer, as the request would have had it.
		b.answerArrow(it, m, "tasks/result ", " (id "+termtext.Line(m.id)+")")
	case (m.isResponse() || m.isError()) && b.taskReqs[m.id] != "":
		b.own(it, Arrow{From: peer, Kind: KindReply, Label: b.taskReqs[m.id] + " " + answerLabel(m, "") + " (id " + termtext.Line(m.id) + ")"})
	case m.method == "notifications/tasks/status" && b.taskID != "" && p.TaskID == b.taskID:
		label := "task status " + clip(p.Status, maxMethodRunes)
		if p.StatusMsg != "" {
			label += ` "` + clip(p.StatusMsg, maxMessageRunes) + `"`
		}
		b.own(it, Arrow{From: peer, Kind: KindTaskStatus, Label: label})
	case m.method == "notifications/progress" && b.tokens[compactID(p.Token)]:
		b.own(it, b.progressArrow(p))
		if !b.cancelled {
			b.lastActivity = it.T - b.start
		}
	case m.method == "notifications/cancelled" && b.peerReqs[compactID(p.RequestID)] != nil:
		id := compactID(p.RequestID)
		if pr := b.peerReqs[id]; !pr.cancelled {
			pr.cancelled, pr.cancelledAt = true, it.T-b.start
		}
		b.add(it, Arrow{From: peer, Kind: KindCancel, Label: "notifications/cancelled (id " + termtext.Line(id) + ")" + reasonText(p.Reason)}, false)
	case m.isRequest():
		b.peerReqs[m.id] = &peerRequest{method: m.method}
		b.add(it, Arrow{From: peer, Kind: KindServerRequest, Label: clip(m.method, maxMethodRunes) + " (id " + termtext.Line(m.id) + ")"}, false)
	}
}

// httpLine reads an HTTP fact: closing the request's response stream
// is how 2026-07-28 cancels over Streamable HTTP (--cancel-mode close).
func (b *builder) httpLine(it Item) {
	id, ok := closedStream(it.HTTP)
	if !ok || b.origin != Client || id != b.id {
		return
	}
	b.cancel(it)
	b.streamClosed = true
	b.own(it, Arrow{From: Client, Kind: KindStreamClosed, Label: "HTTP stream of request " + termtext.Line(id) + " closed"})
}

// answerArrow draws a response or error to the request, or to the
// tasks/result that fetched its task's answer (with a prefix and suffix
// that say so).
func (b *builder) answerArrow(it Item, m message, prefix, suffix string) {
	kind := KindResponse
	if m.isError() {
		kind = KindError
	}
	sum := summarize(m.result)
	if sum.inputRequired && m.isResponse() && !b.cancelled {
		// Not the answer yet: the server asks for input and a retry.
		b.retry, b.retryState = true, sum.requestState
	}
	task := ""
	if sum.taskID != "" && b.taskID == "" {
		b.taskID = sum.taskID
		task = "task " + clip(sum.taskID, maxMethodRunes) + " " + clip(sum.status, maxMethodRunes)
	}
	a := Arrow{From: b.origin.other(), Kind: kind, Label: prefix + answerLabel(m, task) + suffix}
	if b.answered && task == "" && !b.cancelled {
		a.Label = "duplicate " + a.Label
	}
	b.own(it, a)
	i := len(b.arrows) - 1
	switch last := &b.arrows[i]; {
	case task != "" || sum.inputRequired:
		// A created task answers nothing yet: the work goes on.
	case last.Ignored && b.lateAnswer < 0:
		b.lateAnswer = i
	case !b.answered && !last.Ignored:
		b.answered, b.answer = true, i
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
	case sum.inputRequired:
		label := "result: input required"
		if len(sum.inputs) > 0 {
			label += ": " + clip(strings.Join(sum.inputs, ", "), maxMessageRunes)
		}
		return label
	case sum.isError:
		return "result (isError)"
	case sum.status != "":
		return "result: " + clip(sum.status, maxMethodRunes)
	case sum.action != "":
		return "result: " + clip(sum.action, maxMethodRunes)
	}
	return "result"
}

// reasonText is a cancel's reason for its label.
func reasonText(reason string) string {
	if reason == "" {
		return ""
	}
	return ` "` + clip(reason, maxReasonRunes) + `"`
}

func (b *builder) progressArrow(p requestParams) Arrow {
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
	return Arrow{From: b.origin.other(), Kind: KindProgress, Label: label, value: value, valueTo: value}
}

// cancel notes the first cancel's time: traffic after it is ignored.
func (b *builder) cancel(it Item) {
	if !b.cancelled {
		b.cancelled, b.cancelAt = true, it.T-b.start
	}
}

// own adds an arrow about the request itself.
func (b *builder) own(it Item, a Arrow) {
	b.add(it, a, true)
	b.fold()
	b.lastOwn = len(b.arrows) - 1
}

// add stamps an arrow with its time and line, and whether it is the
// request's own traffic after the cancel, and keeps it.
func (b *builder) add(it Item, a Arrow, own bool) {
	a.At, a.Until, a.Count, a.Lines = it.T-b.start, it.T-b.start, 1, []int{it.Line}
	if own && b.cancelled && a.From != b.origin && (a.Kind == KindProgress || a.Kind == KindResponse || a.Kind == KindError) {
		a.Ignored, a.AfterCancel = true, a.At-b.cancelAt
		a.afterTo = a.AfterCancel
		a.PassedOn = b.relayed
		a.Label += " · " + ignoredWord(a) + " (cancel +" + Human(a.AfterCancel) + ")"
		b.ownIgnored++
	}
	b.arrows = append(b.arrows, a)
}
