package diagram

// Lane is one column of the diagram.
type Lane uint8

const (
	Client Lane = iota // mcpoke
	Server
)

// Name is the lane's participant name in both renderers.
func (l Lane) Name() string {
	if l == Client {
		return "mcpoke"
	}
	return "server"
}

// other is the lane across.
func (l Lane) other() Lane {
	if l == Client {
		return Server
	}
	return Client
}

// Kind says what an arrow carries. Kinds are about the request drawn,
// whoever sent it: KindRequest is the server's own when the diagram is
// of a request the server sent (Life.Origin is Server).
type Kind uint8

const (
	KindRequest       Kind = iota // the request drawn
	KindProgress                  // notifications/progress, one or a run
	KindCancel                    // notifications/cancelled
	KindTaskCancel                // tasks/cancel, for a task-augmented request
	KindStreamClosed              // closing the request's HTTP stream: the cancel under 2026-07-28
	KindResponse                  // a result
	KindError                     // an error response
	KindServerRequest             // a request the other side sent meanwhile
	KindReply                     // an answer to such a request, or to tasks/cancel or tasks/get
	KindTaskPoll                  // tasks/get or tasks/result about the request's task
	KindTaskStatus                // notifications/tasks/status about it
)

// isRequest reports whether the arrow opens an exchange (drawn solid).
func (k Kind) isRequest() bool {
	return k == KindRequest || k == KindTaskCancel || k == KindServerRequest || k == KindTaskPoll
}

// isNotification reports whether the arrow is one-way (drawn async).
func (k Kind) isNotification() bool {
	return k == KindProgress || k == KindCancel || k == KindStreamClosed || k == KindTaskStatus
}

// IsCancel reports whether the arrow is a way of cancelling.
func (k Kind) IsCancel() bool {
	return k == KindCancel || k == KindTaskCancel || k == KindStreamClosed
}

// Arrow is one message, or a run of progress, between the lanes.
type Arrow struct {
	From Lane
	Kind Kind
	// At is milliseconds after the request was sent; Until is the last
	// one's time for a run, else At.
	At, Until float64
	// Count is how many frames the arrow stands for: 1, or a run's length.
	Count int
	// Label is the text on the arrow, safe for a terminal (termtext).
	Label string
	// Ignored marks traffic for the request after its cancel: recorded,
	// never taken as its result. AfterCancel is its delay after the cancel.
	Ignored bool
	// PassedOn marks Ignored traffic that a proxy passed on to the host
	// (Options.Relayed): late, and not ignored by the proxy.
	PassedOn    bool
	AfterCancel float64
	// Lines are the transcript lines the arrow draws.
	Lines []int

	// value and valueTo are a progress value, or a run's first and last,
	// for a run's label; afterTo is a run's last delay after the cancel.
	value, valueTo string
	afterTo        float64
}

// SpanKind says what a stretch of time is.
type SpanKind uint8

const (
	// SpanTimeout is the wait that ended, or will end, in a timeout: from
	// the request (or the progress that restarted the timer) to the
	// cancel the timeout sent.
	SpanTimeout SpanKind = iota
	// SpanAfter is the time after the cancel, to the end of what was
	// seen: traffic for the request in it is ignored.
	SpanAfter
	// SpanSettle is the settle window: the request stays cancelling
	// while mcpoke watches what the server does.
	SpanSettle
)

// Span is a stretch of time drawn around the arrows in it.
type Span struct {
	Kind     SpanKind
	From, To float64 // milliseconds after the request
	// Label says what the span is, where it opens; End, if not "", says
	// how it ended, where it closes.
	Label, End string
	// Open is a span still running when the drawing was made (a live
	// request): To is the drawing's end, not the span's.
	Open bool
}

// Life is one request's life, ready to draw.
type Life struct {
	// Title names the request: "tools/call sleep · request 3".
	Title string
	// Server says who answered: "mcpoke-demo dev · protocol 2025-11-25";
	// "" when the transcript has no initialize.
	Server string
	// ID is the request's id as JSON text.
	ID string
	// Origin is who sent the request: Client for mcpoke's, Server for a
	// request the server sent (an elicitation, a sampling request).
	Origin Lane
	Arrows []Arrow
	// Spans are in the order they open; a span that opens inside another
	// closes inside it too.
	Spans []Span
	// Outcome says how it ended, as the last note.
	Outcome string
	// Live says the request was still in flight when drawn; End is the
	// latest time drawn, after the request.
	Live bool
	End  float64
	// Client names the lane of the request's client: "mcpoke", or "host"
	// in a proxy's transcript (Options.Relayed).
	Client string
}

// clientName is the client lane's name.
func (l *Life) clientName() string {
	if l.Client == "" {
		return "mcpoke"
	}
	return l.Client
}

// ignoredWord says what became of traffic after the cancel.
func ignoredWord(a Arrow) string {
	if a.PassedOn {
		return "passed on"
	}
	return "ignored"
}

// Span returns l's span of kind k, or nil.
func (l *Life) Span(k SpanKind) *Span {
	for i := range l.Spans {
		if l.Spans[i].Kind == k {
			return &l.Spans[i]
		}
	}
	return nil
}
