package proxy

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpoke/mcpoke/internal/check"
	"github.com/mcpoke/mcpoke/internal/english"
)

// CardReport is the host's report card: who the host is, on which era
// and transport, and one graded line per thing the spec asks of a host.
//
// With one host session (always on stdio) that is all. Over HTTP with
// several host sessions, which may be different hosts, Sessions grades
// each on its own, and the fields above sum them up: Host and Protocol
// name them all, and each of Lines has the worst status any session got
// on it, with every session's facts after its label.
type CardReport struct {
	Host      string     `json:"host"`
	Protocol  string     `json:"protocol"`
	Transport string     `json:"transport"`
	Requests  int        `json:"requests"`
	Lines     []CardLine `json:"lines"`
	// Session is the host session's label when the card is one
	// session's (over HTTP); OtherSessions, for a card asked for one
	// session of several (ReportSession), the others' labels.
	Session       string   `json:"session,omitempty"`
	OtherSessions []string `json:"other_sessions,omitempty"`
	// Sessions is each host session's own card, when there are several.
	Sessions []SessionCard `json:"sessions,omitempty"`
	// Ungraded counts the sessions past the card's bound, not graded.
	Ungraded int `json:"ungraded_sessions,omitempty"`
}

// SessionCard is one host session's card: its label (s1, s2, ...; ""
// for requests without a session id), its host and era, its grades.
type SessionCard struct {
	Session  string     `json:"session"`
	Host     string     `json:"host"`
	Protocol string     `json:"protocol"`
	Requests int        `json:"requests"`
	Lines    []CardLine `json:"lines"`
}

// Info is the status of a card line that measures rather than grades
// (a timeout, a count): the spec leaves the value to the host.
const Info check.Status = "info"

// CardLine is one graded line: the section (Form, When, Progress, After
// a cancel, On close), what it grades, the spec sentence with its level,
// the status, and the evidence (request ids and times).
type CardLine struct {
	Section string `json:"section"`
	Title   string `json:"title"`
	check.Rule
	Status check.Status `json:"status"`
	Facts  []string     `json:"facts"`
}

// Card sections, in the order the card lists them.
const (
	SectionForm     = "Form"
	SectionWhen     = "When"
	SectionProgress = "Progress"
	SectionAfter    = "After a cancel"
	SectionClose    = "On close"
)

// Eras as the card names them: 2026-07-28 and later cancel over HTTP by
// closing the stream; the others by a notification.
func modernEra(v string) bool { return v >= "2026-07-28" }

// raceWindow is how soon after an answer a cancel for it counts as one
// that crossed it on the wire rather than one for a request the host
// knew was done.
const raceWindow = time.Second

// Report grades the host from what the card has seen so far: each host
// session on its own, summed up when there are several.
func (c *Card) Report() *CardReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	var cards []SessionCard
	for _, label := range c.labels {
		h := c.sessions[label]
		if len(h.order) == 0 && len(h.cancels) == 0 {
			continue // a session that sent nothing to grade
		}
		h.last = c.last
		cards = append(cards, h.report())
	}
	switch len(cards) {
	case 0:
		h := &hostCard{transport: c.transport, reqs: map[string]*hostRequest{}, last: c.last, budget: new(int), cancelBudget: new(int)}
		cards = append(cards, h.report())
		fallthrough
	case 1:
		s := cards[0]
		return &CardReport{Host: s.Host, Protocol: s.Protocol, Transport: c.transport, Requests: s.Requests, Lines: s.Lines,
			Session: s.Session, Ungraded: c.ignored}
	}
	return summary(c.transport, cards, c.ignored)
}

// ReportSession is the card of host session label alone, as Report
// gives a proxy that had only that session; false if it had none such.
func (c *Card) ReportSession(label string) (*CardReport, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.sessions[label]
	if h == nil {
		return nil, false
	}
	h.last = c.last
	s := h.report()
	rep := &CardReport{Host: s.Host, Protocol: s.Protocol, Transport: c.transport, Requests: s.Requests, Lines: s.Lines, Session: label}
	for _, other := range c.labels {
		if o := c.sessions[other]; other != label && (len(o.order) > 0 || len(o.cancels) > 0) {
			rep.OtherSessions = append(rep.OtherSessions, SessionName(other))
		}
	}
	return rep, true
}

// report grades one host session.
func (c *hostCard) report() SessionCard {
	era := c.era
	if era == "" {
		era = "unknown"
	}
	host := c.host
	if host == "" {
		host = "unknown host (no clientInfo seen)"
	}
	s := SessionCard{Session: c.label, Host: host, Protocol: era, Requests: len(c.order)}
	s.Lines = append(s.Lines, c.formLine(), c.initializeLine(), c.inProgressLine())
	s.Lines = append(s.Lines, c.whenLines()...)
	s.Lines = append(s.Lines, c.progressLine(), c.lateLine(), c.resendLine(), c.closeLine())
	return s
}

// summary sums up several sessions' cards: the hosts and eras they
// were, and each line at the worst status a session got on it, with
// every session's facts after its label. Every session's card has the
// same lines in the same order.
func summary(transport string, cards []SessionCard, ungraded int) *CardReport {
	rep := &CardReport{Transport: transport, Sessions: cards, Ungraded: ungraded}
	var hosts, eras []string
	for _, s := range cards {
		hosts = append(hosts, s.Host+" ("+SessionName(s.Session)+")")
		if !slices.Contains(eras, s.Protocol) {
			eras = append(eras, s.Protocol)
		}
		rep.Requests += s.Requests
	}
	rep.Host = english.Count(len(cards), "host session", "host sessions") + ": " + strings.Join(hosts, ", ")
	rep.Protocol = strings.Join(eras, ", ")
	for i, l := range cards[0].Lines {
		sum := CardLine{Section: l.Section, Title: l.Title, Rule: l.Rule, Status: check.Skip}
		differ := false
		for _, s := range cards {
			sl := s.Lines[i]
			if worse(sl.Status, sum.Status) {
				sum.Status = sl.Status
			}
			if sl.Sentence != l.Sentence || sl.Spec != l.Spec {
				differ = true
			}
			if sl.Level == check.Must {
				sum.Level = check.Must
			}
			for _, f := range sl.Facts {
				sum.Facts = append(sum.Facts, SessionName(s.Session)+": "+f)
			}
		}
		if differ {
			// The sessions' eras or transports grade this line against
			// different sentences: each session's card says which.
			sum.Sentence = "(the sessions' eras differ: each session's card quotes the sentence it is graded against)"
			sum.Spec, sum.Versions = "", nil
		}
		rep.Lines = append(rep.Lines, sum)
	}
	return rep
}

// SessionName is how the card names a host session: its label, or
// "stateless" for requests without a session id (2026-07-28 HTTP, or a
// 2025 host before initialize gave it one).
func SessionName(label string) string {
	if label == "" {
		return "stateless"
	}
	return label
}

// statusRank orders statuses from the best news to the worst, for a
// summary line: skip (nothing seen), info, pass, warn, fail.
var statusRank = map[check.Status]int{check.Skip: 0, Info: 1, check.Pass: 2, check.Warn: 3, check.Fail: 4}

func worse(a, b check.Status) bool { return statusRank[a] > statusRank[b] }

func spec(era, page string) (string, []string) {
	if modernEra(era) {
		return "2026-07-28/" + page, []string{"2026-07-28"}
	}
	return "2025-11-25/" + page, []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}
}

func rule(era, page string, level check.Level, sentence string) check.Rule {
	s, v := spec(era, page)
	return check.Rule{Level: level, Sentence: sentence, Spec: s, Versions: v}
}

func (c *hostCard) formLine() CardLine {
	l := CardLine{Section: SectionForm, Title: "Cancels in the form its era and transport call for"}
	modern := modernEra(c.era)
	var right, wrong []string
	switch {
	case c.transport == "stdio" && modern:
		l.Rule = rule(c.era, "cancellation.mdx (Transport-Specific Cancellation)", check.Must,
			"stdio: There is no per-request stream to close. The client MUST send a notifications/cancelled notification referencing the request ID.")
	case c.transport == "stdio":
		l.Rule = rule(c.era, "lifecycle.mdx (Timeouts)", check.Should,
			"When the request has not received a success or error response within the timeout period, the sender SHOULD issue a cancellation notification for that request and stop waiting for a response.")
	case modern:
		l.Rule = rule(c.era, "cancellation.mdx (Transport-Specific Cancellation)", check.Must,
			"Streamable HTTP: Closing the SSE response stream is the cancellation signal. The server MUST treat a client disconnect as cancellation of that request. No notifications/cancelled message is required or expected.")
	default:
		l.Rule = rule(c.era, "transports.mdx (Streamable HTTP, Sending Messages to the Server)", check.Should,
			"Disconnection SHOULD NOT be interpreted as the client cancelling its request. To cancel, the client SHOULD explicitly send an MCP CancelledNotification.")
	}
	// A stream closed right after its notification (or before it) is one
	// cancel made both ways; grade the request, not each signal.
	type forms struct{ note, stream bool }
	byID := map[string]*forms{}
	var ids []string
	for _, hc := range c.cancels {
		if hc.state != "pending" && !hc.stream {
			continue // graded by the in-progress line
		}
		f := byID[hc.id]
		if f == nil {
			f = &forms{}
			byID[hc.id] = f
			ids = append(ids, hc.id)
		}
		if hc.stream {
			f.stream = true
		} else {
			f.note = true
		}
	}
	for _, id := range ids {
		f := byID[id]
		switch {
		case c.transport == "stdio" && f.note, c.transport != "stdio" && modern && f.stream,
			c.transport != "stdio" && !modern && f.note:
			right = append(right, c.cancelFact(id, f.note, f.stream))
		default:
			wrong = append(wrong, c.cancelFact(id, f.note, f.stream))
		}
	}
	switch {
	case len(right)+len(wrong) == 0:
		l.Status = check.Skip
		l.Facts = []string{"no cancel seen: have the host stop a call (Stop in its UI, or a timeout) on the demo's sleep tool"}
	case len(wrong) == 0:
		l.Status = check.Pass
		l.Facts = right
	default:
		l.Status = check.Warn
		if l.Level == check.Must {
			l.Status = check.Fail
		}
		for _, w := range wrong {
			l.Facts = append(l.Facts, "wrong form: "+w)
		}
		l.Facts = append(l.Facts, right...)
	}
	return l
}

// cancelFact says how one request was cancelled and when.
func (c *hostCard) cancelFact(id string, note, stream bool) string {
	var how []string
	if note {
		how = append(how, "notifications/cancelled")
	}
	if stream {
		how = append(how, "closed its response stream")
	}
	what := strings.Join(how, " and ")
	if q := c.reqs[id]; q != nil && q.cancel != nil {
		what += fmt.Sprintf(" %s after sending it", ms(q.cancel.at.Sub(q.sent)))
		if !stream && !modernEra(c.era) && c.transport != "stdio" {
			what += " (POSTed)"
		}
		if note && modernEra(c.era) && c.transport != "stdio" && !stream {
			what += ": a POSTed notification is the old form and cancels nothing in 2026-07-28"
		}
	}
	return fmt.Sprintf("request %s (%s): %s", id, c.method(id), what)
}

func (c *hostCard) method(id string) string {
	if q := c.reqs[id]; q != nil {
		return q.method
	}
	return "unknown"
}

func (c *hostCard) initializeLine() CardLine {
	l := CardLine{Section: SectionForm, Title: "Never cancels initialize",
		Rule: rule("2025-11-25", "cancellation.mdx (Behavior Requirements)", check.Must,
			"The initialize request MUST NOT be cancelled by clients")}
	var bad []string
	sawInit := false
	for _, id := range c.order {
		if c.reqs[id].method == "initialize" {
			sawInit = true
		}
	}
	for _, hc := range c.cancels {
		if hc.state == "initialize" {
			bad = append(bad, fmt.Sprintf("request %s (initialize) cancelled %s after it was sent", hc.id, ms(hc.at.Sub(c.reqs[hc.id].sent))))
		}
	}
	switch {
	case len(bad) > 0:
		l.Status, l.Facts = check.Fail, bad
	case !sawInit:
		l.Status, l.Facts = check.Skip, []string{"no initialize seen (2026-07-28 has none)"}
	default:
		l.Status, l.Facts = check.Pass, []string{"initialize was never cancelled"}
	}
	return l
}

func (c *hostCard) inProgressLine() CardLine {
	l := CardLine{Section: SectionForm, Title: "Cancels only requests it sent that are still in progress",
		Rule: rule(c.era, "cancellation.mdx (Behavior Requirements)", check.Must,
			"Cancellation notifications MUST only reference requests that: Were previously issued in the same direction; Are believed to still be in-progress")}
	var bad, raced []string
	n := 0
	for _, hc := range c.cancels {
		if hc.stream {
			continue
		}
		n++
		switch hc.state {
		case "unknown":
			bad = append(bad, fmt.Sprintf("request %s: the host never sent it", hc.id))
		case "cancelled already":
			bad = append(bad, fmt.Sprintf("request %s (%s): cancelled again, it was cancelled already", hc.id, c.method(hc.id)))
		case "answered":
			f := fmt.Sprintf("request %s (%s): cancelled %s after its answer passed", hc.id, c.method(hc.id), ms(hc.answeredBy))
			if hc.answeredBy < raceWindow {
				raced = append(raced, f+" (the two crossed: allowed)")
			} else {
				bad = append(bad, f)
			}
		}
	}
	switch {
	case n == 0:
		l.Status, l.Facts = check.Skip, []string{"no notifications/cancelled seen"}
	case len(bad) > 0:
		l.Status, l.Facts = check.Fail, append(bad, raced...)
	default:
		l.Status = check.Pass
		l.Facts = append([]string{fmt.Sprintf("%d cancel notifications, each for a request of its own still pending", n-len(raced))}, raced...)
	}
	return l
}

func (c *hostCard) whenLines() []CardLine {
	timeout := CardLine{Section: SectionWhen, Title: "Effective timeout (request to cancel, no progress)",
		Rule: rule(c.era, "cancellation.mdx (Timeouts)", check.Should,
			"Implementations SHOULD establish timeouts for all sent requests, to prevent hung connections and resource exhaustion.")}
	if !modernEra(c.era) {
		timeout.Spec = "2025-11-25/lifecycle.mdx (Timeouts)"
	}
	resets := CardLine{Section: SectionWhen, Title: "Progress resets the timeout",
		Rule: rule(c.era, timeout.Spec, check.May,
			"Implementations MAY choose to reset the timeout clock when receiving a progress notification corresponding to the request, as this implies that work is actually happening.")}
	resets.Spec = timeout.Spec
	maximum := CardLine{Section: SectionWhen, Title: "A maximum timeout despite progress",
		Rule: rule(c.era, timeout.Spec, check.Should,
			"However, implementations SHOULD always enforce a maximum timeout, regardless of progress notifications, to limit the impact of a misbehaving client or server.")}
	maximum.Spec = timeout.Spec

	var plain []time.Duration
	var plainFacts []string
	type withProgress struct {
		id             string
		total, sinceLP time.Duration
		n              int
	}
	var prog []withProgress
	for _, id := range c.order {
		q := c.reqs[id]
		if q.cancel == nil {
			continue
		}
		total := q.cancel.at.Sub(q.sent)
		if q.progress == 0 {
			plain = append(plain, total)
			plainFacts = append(plainFacts, fmt.Sprintf("request %s (%s): cancelled %s after it was sent%s", id, q.method, ms(total), reasonNote(q.cancel.reason)))
		} else {
			prog = append(prog, withProgress{id, total, q.cancel.at.Sub(q.lastProgress), q.progress})
		}
	}
	var t time.Duration
	if len(plain) == 0 {
		timeout.Status, timeout.Facts = check.Skip, []string{"no request without progress was cancelled: let a call of the demo's sleep tool time out"}
	} else {
		sorted := append([]time.Duration(nil), plain...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
		t = sorted[len(sorted)/2]
		timeout.Status = Info
		timeout.Facts = append([]string{fmt.Sprintf("median %s over %s (a cancel on the user's Stop counts too: read the reasons)", ms(t), english.Plural(len(plain), "cancel"))}, plainFacts...)
		// A request far past that timeout with no cancel: the host may
		// have stopped waiting without saying so.
		now := c.last
		if !c.closedAt.IsZero() {
			now = c.closedAt
		}
		for _, id := range c.order {
			q := c.reqs[id]
			if q.method == "tools/call" && q.answered.IsZero() && q.cancel == nil && !q.killed && now.Sub(q.sent) > 2*t {
				timeout.Facts = append(timeout.Facts, fmt.Sprintf("request %s (%s): no answer and no cancel %s after it was sent, past twice the timeout: the host may have stopped waiting without cancelling", id, q.method, ms(now.Sub(q.sent))))
			}
		}
	}
	// Calls with progress that the host never cancelled but went on
	// waiting for past the timeout: progress reset its clock, or it gave
	// up without a cancel. The wire cannot tell which.
	var uncancelled []string
	if t > 0 {
		now := c.last
		if !c.closedAt.IsZero() {
			now = c.closedAt
		}
		for _, id := range c.order {
			q := c.reqs[id]
			if q.method == "tools/call" && q.cancel == nil && !q.killed && q.progress > 0 {
				end := q.answered
				if end.IsZero() {
					end = now
				}
				if end.Sub(q.sent) > t+t/4 {
					uncancelled = append(uncancelled, fmt.Sprintf("request %s (%s): %s and no cancel %s after it was sent: progress reset the timeout, or the host stopped waiting without a cancel (the wire cannot tell which)",
						id, q.method, english.Count(q.progress, "progress notification", "progress notifications"), ms(end.Sub(q.sent))))
				}
			}
		}
	}
	switch {
	case len(prog) == 0:
		resets.Status, resets.Facts = check.Skip, []string{"no cancelled request had progress: let a call of the demo's progress tool time out"}
		maximum.Status, maximum.Facts = check.Skip, []string{"needs a cancelled request that had progress"}
		if len(uncancelled) > 0 {
			resets.Status, resets.Facts = Info, uncancelled
		}
	default:
		resets.Status, maximum.Status = Info, Info
		// A call cancelled well before the timeout was stopped (the
		// user's Stop): it says nothing of what progress does to the
		// clock. One cancelled near the timeout despite its progress
		// says no; one past it says yes.
		reset, atTimeout := false, false
		for _, p := range prog {
			f := fmt.Sprintf("request %s (%s): %s, cancelled %s after it was sent and %s after its last progress",
				p.id, c.method(p.id), english.Count(p.n, "progress notification", "progress notifications"), ms(p.total), ms(p.sinceLP))
			switch {
			case t == 0:
			case p.total > t+t/4:
				reset = true
			case p.total >= t-t/4:
				atTimeout = true
			default:
				f += fmt.Sprintf(": before the %s timeout, a stop rather than a timeout", ms(t))
			}
			resets.Facts = append(resets.Facts, f)
		}
		resets.Facts = append(resets.Facts, uncancelled...)
		switch {
		case t == 0:
			resets.Facts = append([]string{"no cancel without progress to compare with"}, resets.Facts...)
			maximum.Status, maximum.Facts = check.Skip, []string{"needs a cancel without progress to compare with"}
		case reset:
			resets.Facts = append([]string{fmt.Sprintf("yes: calls with progress ran past the %s timeout", ms(t))}, resets.Facts...)
			longest := time.Duration(0)
			for _, p := range prog {
				longest = max(longest, p.total)
			}
			maximum.Facts = []string{fmt.Sprintf("the longest call with progress was cancelled %s after it was sent; whether that was a maximum or the server's progress stopping, its facts above say (time since the last progress)", ms(longest))}
		case atTimeout:
			resets.Facts = append([]string{fmt.Sprintf("no: calls with progress were cancelled at the %s timeout", ms(t))}, resets.Facts...)
			maximum.Status, maximum.Facts = check.Pass, []string{"progress does not extend the timeout, so the timeout is the maximum"}
		default:
			resets.Status = check.Skip
			resets.Facts = append([]string{fmt.Sprintf("no call with progress was cancelled at or after the %s timeout: let a call of the demo's sleep tool (with steps) time out", ms(t))}, resets.Facts...)
			maximum.Status, maximum.Facts = check.Skip, []string{"needs a call with progress that timed out"}
			if len(uncancelled) > 0 {
				resets.Status = Info
				maximum.Facts = append(maximum.Facts, "calls with progress ran past the timeout with no cancel (facts above): if the host gave up on them, it did not say so")
			}
		}
	}
	return []CardLine{timeout, resets, maximum}
}

func reasonNote(r string) string {
	if r == "" {
		return ""
	}
	return fmt.Sprintf(" (reason %q)", r)
}

func (c *hostCard) progressLine() CardLine {
	l := CardLine{Section: SectionProgress, Title: "Asks for progress (a progressToken) on its calls",
		Rule: rule(c.era, "progress.mdx (Progress Flow)", check.May,
			"When a party wants to receive progress updates for a request, it includes a progressToken in the request metadata.")}
	calls, with := 0, 0
	var ids []string
	for _, id := range c.order {
		if q := c.reqs[id]; q.method == "tools/call" {
			calls++
			if q.token != "" {
				with++
				if len(ids) < 5 {
					ids = append(ids, id)
				}
			}
		}
	}
	if calls == 0 {
		l.Status, l.Facts = check.Skip, []string{"no tools/call seen"}
		return l
	}
	l.Status = Info
	l.Facts = []string{fmt.Sprintf("%d of %d tools/call carried a progressToken", with, calls)}
	if len(ids) > 0 {
		l.Facts = append(l.Facts, "e.g. requests "+strings.Join(ids, ", "))
	}
	return l
}

func (c *hostCard) lateLine() CardLine {
	l := CardLine{Section: SectionAfter, Title: "Late answers after its cancel",
		Rule: rule(c.era, "cancellation.mdx (Behavior Requirements)", check.Should,
			"The sender of the cancellation notification SHOULD ignore any response to the request that arrives afterward")}
	for _, id := range c.order {
		if q := c.reqs[id]; q.cancel != nil && len(q.late) > 0 {
			l.Facts = append(l.Facts, fmt.Sprintf("request %s (%s): answered %s after the host's cancel; the proxy passed it on", id, q.method, ms(q.late[0])))
		}
	}
	if len(l.Facts) == 0 {
		l.Status, l.Facts = check.Skip, []string{"no answer came after a cancel: run the proxy with --answer-after-cancel, or cancel the demo's stubborn tool (it answers anyway)"}
		return l
	}
	l.Status = Info
	l.Facts = append(l.Facts, "whether the host showed it is not on the wire: look at its screen")
	return l
}

func (c *hostCard) resendLine() CardLine {
	l := CardLine{Section: SectionAfter, Title: "Does not send a call again after cancelling it (duplicate execution)",
		Rule: rule(c.era, "cancellation.mdx (Timing Considerations)", "",
			"Due to network latency, cancellation notifications may arrive after request processing has completed")}
	var dup []string
	cancelled := 0
	for i, id := range c.order {
		q := c.reqs[id]
		if q.cancel == nil || q.method != "tools/call" {
			continue
		}
		cancelled++
		for _, later := range c.order[i+1:] {
			if r := c.reqs[later]; r.key == q.key && r.sent.After(q.cancel.at) {
				dup = append(dup, fmt.Sprintf("request %s repeats cancelled request %s (%s) %s after the cancel: the server may run it twice",
					later, id, q.method, ms(r.sent.Sub(q.cancel.at))))
				break
			}
		}
	}
	switch {
	case cancelled == 0:
		l.Status, l.Facts = check.Skip, []string{"no tools/call was cancelled"}
	case len(dup) > 0:
		l.Status, l.Facts = check.Warn, dup
	default:
		fact := fmt.Sprintf("none of %d cancelled calls was sent again", cancelled)
		if cancelled == 1 {
			fact = "the cancelled call was not sent again"
		}
		l.Status, l.Facts = check.Pass, []string{fact}
	}
	return l
}

func (c *hostCard) closeLine() CardLine {
	l := CardLine{Section: SectionClose, Title: "Cancels what is pending before it leaves",
		Rule: rule(c.era, "cancellation.mdx (Timeouts)", check.Should,
			"When the request has not received a success or error response within the timeout period, the sender SHOULD cancel the request and stop waiting for a response.")}
	if !modernEra(c.era) {
		l.Spec = "2025-11-25/lifecycle.mdx (Timeouts)"
	}
	switch {
	case c.closedAt.IsZero():
		l.Status, l.Facts = check.Skip, []string{"the host has not left yet"}
	case len(c.abandoned) == 0:
		l.Status, l.Facts = check.Pass, []string{"nothing was pending when the host left"}
	default:
		l.Status = check.Warn
		for _, id := range c.abandoned {
			q := c.reqs[id]
			l.Facts = append(l.Facts, fmt.Sprintf("request %s (%s): pending %s with no cancel when the host left", id, q.method, ms(c.closedAt.Sub(q.sent))))
		}
	}
	if len(c.kills) > 0 {
		notGraded := "they are not graded"
		if len(c.kills) == 1 {
			notGraded = "it is not graded"
		}
		l.Facts = append(l.Facts, fmt.Sprintf("the proxy cancelled %s on the host's behalf (%s); %s",
			english.Plural(len(c.kills), "request"), strings.Join(c.kills, ", "), notGraded))
	}
	return l
}

// ms is a duration for the card, to the millisecond.
func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }
