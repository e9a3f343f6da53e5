package rows

import "context"

// Rounds is what the UI knows of a row that answered input_required.
type Rounds struct {
	// inputs name what the server asked: "ask (elicitation/create)".
	Inputs []string
	// waiting: its questions are open; abandon ends them.
	Waiting bool
	Abandon context.CancelFunc
	// next is the retry's Seq once sent; abandoned or stopped say why
	// there is none.
	Next      uint64
	NextID    string
	Abandoned bool
	Stopped   string
}

// NeedsInput reports whether the row waits for its round's answers.
func (r *Row) NeedsInput() bool { return r.Rounds != nil && r.Rounds.Waiting }
