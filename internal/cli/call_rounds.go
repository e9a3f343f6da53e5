package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/internal/termtext"
	"github.com/mcpoke/mcpoke/session"
)

// reportRound is one round of a multi round-trip request (2026-07-28):
// the request sent, and when the server answered input_required what it
// asked and how the flags answered. Times are ms since round 1 was sent.
type reportRound struct {
	Round     int        `json:"round"`
	RequestID session.ID `json:"requestId"`
	AtMs      float64    `json:"atMs"`
	// State is the request's final state; ResultType its result's
	// resultType when it completed.
	State      string `json:"state"`
	ResultType string `json:"resultType,omitempty"`
	// RequestStateBytes is the length of the opaque requestState the server
	// gave, echoed exactly in the next round; absent when it gave none.
	// RequestState quotes its head and tail (mcp.QuoteState).
	RequestStateBytes *int          `json:"requestStateBytes,omitempty"`
	RequestState      *string       `json:"requestState,omitempty"`
	Inputs            []reportInput `json:"inputs,omitempty"`
}

// reportInput is one of a round's inputRequests.
type reportInput struct {
	Key    string `json:"key"`
	Method string `json:"method"`
	// Answer says how the flags answered; Sent whether an inputResponse
	// went in the retry, and NotSent why not.
	Answer  string `json:"answer,omitempty"`
	Sent    bool   `json:"sent"`
	NotSent string `json:"notSent,omitempty"`
}

// roundsReport reads the rounds of a request; nil when it took one.
func roundsReport(s *session.Session, rounds []mcp.Round, log *askLog) []reportRound {
	if len(rounds) < 2 && (len(rounds) == 0 || rounds[0].Input == nil) {
		return nil
	}
	first, _ := s.Request(rounds[0].Call.Ref()).Info()
	out := make([]reportRound, 0, len(rounds))
	for _, r := range rounds {
		info, _ := s.Request(r.Call.Ref()).Info()
		rr := reportRound{Round: r.N, RequestID: info.ID, AtMs: ms(info.Started.Sub(first.Started)), State: info.State.String()}
		if info.State == session.Completed {
			rr.ResultType = info.ResultType
		}
		if r.Input != nil && r.Input.HasState {
			n, quote := r.Input.StateSize, r.Input.StateQuote
			rr.RequestStateBytes, rr.RequestState = &n, &quote
		}
		for _, a := range r.Answers {
			in := reportInput{Key: a.Key, Method: a.Method, Sent: a.Result != nil, NotSent: a.Refused}
			switch {
			case a.Question != nil && log != nil:
				in.Answer = log.howOf(a.Question)
			case a.Method == "roots/list" && a.Result != nil:
				in.Answer = "the roots of --root"
			}
			rr.Inputs = append(rr.Inputs, in)
		}
		out = append(out, rr)
	}
	return out
}

// roundsOutcome says why the rounds stopped short, for the report; ""
// when the last round is the request's outcome.
func roundsOutcome(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// abandoned reports whether the rounds ended because they were abandoned.
func abandoned(err error) bool { return errors.Is(err, mcp.ErrAbandoned) }

// printRounds lists the rounds of a multi round-trip request.
func printRounds(w io.Writer, rounds []reportRound, stopped string) {
	if len(rounds) == 0 {
		return
	}
	fmt.Fprintf(w, "%-9s %d (multi round-trip request: each retry a new request carrying the answers and the exact requestState)\n", "rounds", len(rounds))
	for _, r := range rounds {
		what := r.State
		if r.ResultType != "" {
			what = r.ResultType
		}
		fmt.Fprintf(w, "  round %d  request %s at %s: %s\n", r.Round, termtext.Line(r.RequestID.String()), human(r.AtMs), what)
		for _, in := range r.Inputs {
			how := in.Answer
			if !in.Sent {
				how += " — nothing sent: " + in.NotSent
			}
			fmt.Fprintf(w, "    %s (%s): %s\n", termtext.Line(in.Key), termtext.Line(in.Method), termtext.Line(how))
		}
	}
	if stopped != "" {
		fmt.Fprintf(w, "  %s\n", termtext.Line(stopped))
	}
}

// howOf says how the policy answered q; "" when it was not asked here.
func (l *askLog) howOf(q *mcp.Question) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, a := range l.asked {
		if a.Q == q {
			return a.Answer
		}
	}
	return ""
}
