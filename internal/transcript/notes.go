package transcript

import (
	"bytes"
	"encoding/json"

	"github.com/mcpoke/mcpoke/internal/jsonscan"
	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// The notes a transcript line may carry.
const (
	noteLate      = "late"
	noteStray     = "stray"
	noteDuplicate = "duplicate"
	noteNoise     = "noise"
	noteForced    = "forced" // out: a request the server declared no capability for
)

// maxTracked bounds how many requests notes remembers; the oldest are
// forgotten first, and traffic for them is then noted stray.
const maxTracked = 100_000

// requestState is what the wire has shown about one of our requests.
type requestState struct {
	cancelled bool
	answered  bool
	token     string // its progress token, if it asked for progress
	// lastProgress is the latest progress value received, for checking
	// that it increases; hasProgress says there was one.
	lastProgress float64
	hasProgress  bool
	// task is the task its CreateTaskResult named: the progress token
	// stays valid for the task's life (MCP 2025-11-25), until taskEnded.
	task      string
	taskEnded bool
}

// notes follows our requests and cancellations on the wire, to say what
// each inbound message is. Keys are ids as JSON text, so 3 and "3" stay
// different, as they are to the peer; over a proxy's HTTP, after the host
// session's label (s2), as two sessions may use the same ids and tokens.
type notes struct {
	requests map[string]*requestState
	order    []string // keys in the order sent, for forgetting
	tokens   map[string]string
	tasks    map[string]string // task id → the key of the request that made it
	limit    int

	// sess is the host session of the frame being read ("" but over a
	// proxy's HTTP): every key is in it.
	sess string
	// eras is what each session's initialize said, by session.
	eras map[string]*eraState
	// msgs and raws are sent's and received's buffers for a frame's
	// messages.
	msgs []wireMsg
	raws []json.RawMessage
}

// eraState is one session's initialize: initID is its id; peer what its
// answer said (the version offered until then), for batches and
// capabilities.
type eraState struct {
	initID  string
	offered string
	peer    session.PeerInfo
}

// maxEras bounds the sessions whose initialize notes remember; past it
// they start afresh.
const maxEras = 1024

func newNotes() notes {
	return notes{requests: map[string]*requestState{}, tokens: map[string]string{}, tasks: map[string]string{}, limit: maxTracked,
		eras: map[string]*eraState{}}
}

// in sets the host session the next frame belongs to.
func (n *notes) in(sess string) { n.sess = sess }

// key is an id or token as JSON text, in the current session.
func (n *notes) key(raw json.RawMessage) string {
	if n.sess == "" {
		return compact(raw)
	}
	return n.sess + " " + compact(raw)
}

// era is the current session's initialize state.
func (n *notes) era() *eraState {
	e := n.eras[n.sess]
	if e == nil {
		if len(n.eras) >= maxEras {
			clear(n.eras)
		}
		e = &eraState{}
		n.eras[n.sess] = e
	}
	return e
}

// wireMsg has the fields that say what a JSON-RPC message is.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

type idParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Token     json.RawMessage `json:"progressToken"`
	Meta      struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

// sent records a frame we wrote (valid JSON): a request, or our
// cancellation of one. It returns noteForced for a request the server
// declared no capability for (mcpoke sends one only when told to, with
// --force).
func (n *notes) sent(frame []byte) (note string) {
	ms := messagesInto(frame, n.msgs[:0])
	if cap(ms) <= 64 {
		n.msgs = ms[:0] // a huge batch does not pin its buffer
	}
	for _, m := range ms {
		switch {
		case m.Method != "" && m.ID != nil:
			id := n.key(m.ID)
			if m.Method == "initialize" {
				var p struct {
					Version string `json:"protocolVersion"`
				}
				_ = json.Unmarshal(m.Params, &p)
				*n.era() = eraState{initID: id, offered: p.Version}
			} else if mcp.CheckDeclared(n.era().peer, m.Method) != nil {
				note = noteForced
			}
			r := n.track(id)
			var p idParams
			if readIDParams(m.Params, &p) && p.Meta.ProgressToken != nil {
				r.token = n.key(p.Meta.ProgressToken)
				n.tokens[r.token] = id
			}
		case m.Method == "notifications/cancelled":
			var p idParams
			if readIDParams(m.Params, &p) && p.RequestID != nil {
				if r := n.requests[n.key(p.RequestID)]; r != nil {
					r.cancelled = true
				}
			}
		}
	}
	return note
}

// received says what an inbound frame (valid JSON) is ("" for ordinary traffic) and
// which rules it broke (session.Violation kinds). A batch gets the first
// note any of its messages has, and every violation.
func (n *notes) received(frame []byte) (string, []string) {
	raws := rawMessages(frame, n.raws[:0])
	if cap(raws) <= 64 {
		n.raws = raws[:0] // a huge batch does not pin its buffer
	}
	if raws == nil {
		return noteNoise, nil
	}
	var vs []string
	if len(raws) > 1 || bytes.HasPrefix(bytes.TrimSpace(frame), []byte("[")) {
		if !session.BatchesAllowed(n.version()) {
			vs = append(vs, session.ViolationBatch.String())
		}
	}
	note := ""
	for _, raw := range raws {
		var m wireMsg
		if !readWireMsg(raw, &m) {
			if note == "" {
				note = noteNoise
			}
			continue
		}
		for _, k := range session.CheckValidMessage(raw) {
			vs = append(vs, k.String())
		}
		one, flaw := n.receivedOne(m)
		if flaw != session.NoViolation {
			vs = append(vs, flaw.String())
		}
		if note == "" {
			note = one
		}
	}
	return note, vs
}

// version is the protocol version the wire follows: the one negotiated,
// or the one offered while initialize is answered.
func (n *notes) version() string {
	e := n.era()
	if e.peer.ProtocolVersion != "" {
		return e.peer.ProtocolVersion
	}
	return e.offered
}

func (n *notes) receivedOne(m wireMsg) (string, session.ViolationKind) {
	switch {
	case m.Method == "" && m.ID != nil && (m.Result != nil || m.Error != nil):
		id := n.key(m.ID)
		r := n.requests[id]
		switch {
		case r == nil:
			return noteStray, 0
		case r.cancelled:
			return noteLate, 0
		case r.answered:
			return noteDuplicate, 0
		}
		r.answered = true
		if task := createdTask(m.Result); task != "" {
			r.task = n.sess + " " + task
			n.tasks[r.task] = id
		}
		if e := n.era(); id == e.initID && m.Result != nil {
			_ = json.Unmarshal(m.Result, &e.peer)
		}
		return "", 0
	case m.Method == "notifications/progress":
		var p progressParams
		if !readProgressParams(m.Params, &p) || p.Token == nil {
			return noteNoise, 0
		}
		r := n.requests[n.tokens[n.key(p.Token)]]
		switch {
		case r == nil:
			return noteStray, 0
		case r.cancelled:
			return noteLate, 0
		case r.answered && (r.task == "" || r.taskEnded):
			return noteStray, session.ViolationProgressAfterResponse
		}
		v, flaw := session.CheckProgressValue(p.Progress)
		if flaw == session.NoViolation {
			if r.hasProgress && v <= r.lastProgress {
				flaw = session.ViolationProgressNotIncreasing
			}
			r.lastProgress, r.hasProgress = v, true
		}
		return "", flaw
	case m.Method == "notifications/tasks/status":
		n.taskStatus(m.Params)
		return "", 0
	case m.Method != "":
		return "", 0 // a request or notification from the peer
	}
	return noteNoise, 0
}

// track starts following request id, forgetting the oldest past the bound.
func (n *notes) track(id string) *requestState {
	if len(n.order) >= n.limit {
		old := n.order[0]
		n.order = n.order[1:]
		if r := n.requests[old]; r != nil && n.tokens[r.token] == old {
			delete(n.tokens, r.token)
		}
		if r := n.requests[old]; r != nil && r.task != "" && n.tasks[r.task] == old {
			delete(n.tasks, r.task)
		}
		delete(n.requests, old)
	}
	r := &requestState{}
	n.requests[id] = r
	n.order = append(n.order, id)
	return r
}

// rawMessages splits a frame (valid JSON) into its messages: one, or a
// batch's, appended to buf (empty, maybe with room). nil means an empty
// batch.
func rawMessages(frame []byte, buf []json.RawMessage) []json.RawMessage {
	trimmed := bytes.TrimSpace(frame)
	var e jsonscan.Elements
	if !e.Start(trimmed) {
		return append(buf, trimmed)
	}
	for e.Next() {
		buf = append(buf, e.Val)
	}
	if len(buf) == 0 {
		return nil
	}
	return buf
}

// messages decodes a frame (valid JSON) into its messages: one, or a
// batch. nil means the frame is not JSON-RPC: an empty batch, or a
// member of another type than wireMsg's.
func messages(frame []byte) []wireMsg { return messagesInto(frame, nil) }

// messagesInto is messages appended to buf (empty, maybe with room), so
// that notes reads every frame into one buffer without an allocation.
func messagesInto(frame []byte, buf []wireMsg) []wireMsg {
	trimmed := bytes.TrimSpace(frame)
	var e jsonscan.Elements
	if !e.Start(trimmed) {
		buf = append(buf, wireMsg{})
		if !readWireMsg(trimmed, &buf[len(buf)-1]) {
			return nil
		}
		return buf
	}
	for e.Next() {
		buf = append(buf, wireMsg{})
		if !readWireMsg(e.Val, &buf[len(buf)-1]) {
			return nil
		}
	}
	if len(buf) == 0 {
		return nil
	}
	return buf
}

// readWireMsg reads one message (valid JSON) as json.Unmarshal would,
// false where it would fail (a member of another type). Read by hand:
// every frame of a transcript goes through it; a key that encoding/json
// would match only by unescaping or folding it is left to encoding/json.
func readWireMsg(v []byte, m *wireMsg) bool {
	var o jsonscan.Members
	if !o.Start(v) {
		return jsonscan.IsNull(v) // null leaves m as it is; another type fails
	}
	for o.Next() {
		switch string(o.Key) {
		case "id":
			m.ID = o.Val
		case "method":
			if !jsonscan.String(o.Val, &m.Method) && !jsonscan.IsNull(o.Val) {
				return false
			}
		case "params":
			m.Params = o.Val
		case "result":
			m.Result = o.Val
		case "error":
			m.Error = o.Val
		default:
			if o.Odd || jsonscan.FoldsTo(o.Key, "id", "method", "params", "result", "error") {
				*m = wireMsg{}
				return json.Unmarshal(v, m) == nil
			}
		}
	}
	return true
}

// readIDParams reads params as json.Unmarshal would into idParams, false
// where it would fail.
func readIDParams(v []byte, p *idParams) bool {
	var o jsonscan.Members
	if !o.Start(v) {
		return jsonscan.IsNull(v)
	}
	for o.Next() {
		switch string(o.Key) {
		case "requestId":
			p.RequestID = o.Val
		case "progressToken":
			p.Token = o.Val
		case "_meta":
			var meta jsonscan.Members
			if !meta.Start(o.Val) {
				if !jsonscan.IsNull(o.Val) {
					return false
				}
				continue
			}
			for meta.Next() {
				switch {
				case string(meta.Key) == "progressToken":
					p.Meta.ProgressToken = meta.Val
				case meta.Odd || jsonscan.FoldsTo(meta.Key, "progressToken"):
					*p = idParams{}
					return json.Unmarshal(v, p) == nil
				}
			}
		default:
			if o.Odd || jsonscan.FoldsTo(o.Key, "requestId", "progressToken", "_meta") {
				*p = idParams{}
				return json.Unmarshal(v, p) == nil
			}
		}
	}
	return true
}

// progressParams are the params of notifications/progress that notes
// reads.
type progressParams struct {
	Token    json.RawMessage `json:"progressToken"`
	Progress json.RawMessage `json:"progress"`
}

// readProgressParams reads params as json.Unmarshal would into
// progressParams, false where it would fail.
func readProgressParams(v []byte, p *progressParams) bool {
	var o jsonscan.Members
	if !o.Start(v) {
		return jsonscan.IsNull(v)
	}
	for o.Next() {
		switch string(o.Key) {
		case "progressToken":
			p.Token = o.Val
		case "progress":
			p.Progress = o.Val
		default:
			if o.Odd || jsonscan.FoldsTo(o.Key, "progressToken", "progress") {
				*p = progressParams{}
				return json.Unmarshal(v, p) == nil
			}
		}
	}
	return true
}

// compact returns JSON text without insignificant space, so ids compare
// as values of the same type: 3 and "3" stay apart.
func compact(raw json.RawMessage) string {
	if !bytes.ContainsAny(raw, " \t\r\n") {
		return string(raw) // as Compact writes it: most ids, at no cost
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// createdTask is the task id a CreateTaskResult names ("" for any other
// result): a task and no content.
func createdTask(result json.RawMessage) string {
	if result == nil || !bytes.Contains(result, []byte(`"task"`)) {
		return ""
	}
	var r struct {
		Task *struct {
			ID string `json:"taskId"`
		} `json:"task"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(result, &r) != nil || r.Task == nil || r.Content != nil {
		return ""
	}
	return r.Task.ID
}

// taskStatus ends the progress token of a task whose status is terminal.
func (n *notes) taskStatus(params json.RawMessage) {
	st, err := session.ParseTaskState(params)
	if err != nil || !session.TaskStatusTerminal(st.Status) {
		return
	}
	task := n.sess + " " + st.ID
	if r := n.requests[n.tasks[task]]; r != nil && r.task == task {
		r.taskEnded = true
	}
}
