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

// Kind says what an arrow carries.
type Kind uint8

const (
	KindRequest       Kind = iota // our request
	KindProgress                  // notifications/progress, one or a run
	KindCancel                    // notifications/cancelled
	KindTaskCancel                // tasks/cancel, for a task-augmented request
	KindStreamClosed              // closing the request's HTTP stream: the cancel under 2026-07-28
	KindResponse                  // a result
	KindError                     // an error response
	KindServerRequest             // a request the server sent us meanwhile
	KindReply                     // our answer to a server request, or the server's to tasks/cancel
)

// isRequest reports whether the arrow opens an exchange (drawn solid).
func (k Kind) isRequest() bool {
	return k == KindRequest || k == KindTaskCancel || k == KindServerRequest
}

// isNotification reports whether the arrow is one-way (drawn async).
func (k Kind) isNotification() bool {
	return k == KindProgress || k == KindCancel || k == KindStreamClosed
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
	Ignored     bool
	AfterCancel float64
	// Lines are the transcript lines the arrow draws.
	Lines []int

	value string // a progress value, for a run's label
}

// Span is a stretch of time drawn around the arrows in it, such as the
// wait for late traffic after the cancel.
type Span struct {
	From, To float64 // milliseconds after the request
	Label    string
}

// Life is one request's life, ready to draw.
type Life struct {
	// Title names the request: "tools/call sleep · request 3".
	Title string
	// Server says who answered: "mcpoke-demo dev · protocol 2025-11-25";
	// "" when the transcript has no initialize.
	Server string
	// ID is the request's id as JSON text.
	ID     string
	Arrows []Arrow
	// After is the span after the cancel, nil when there was none.
	After *Span
	// Outcome says how it ended, as the last note.
	Outcome string
}
