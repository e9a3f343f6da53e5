package cli

import (
	"context"

	"github.com/mcpoke/mcpoke/session"
)

// reissueLost sends a lost request again, once, under a new id: in
// protocol 2026-07-28 a broken response stream loses the request in
// flight and "clients MUST re-issue it as a new request with a new
// request ID" (changelog, SEP-2575). It returns the new call and what
// the report says of the lost one, or nil when c was not lost, mcpoke is
// stopping, or the new send failed (then c's failure stands). A second
// loss is not re-issued again: the report shows it lost, twice.
func reissueLost(ctx context.Context, s *session.Session, c *session.Call, state session.State, req outgoing, opts session.CallOptions) (*session.Call, *reportRetry) {
	if state != session.Failed || ctx.Err() != nil {
		return nil, nil
	}
	info, ok := s.Request(c.Ref()).Info()
	if !ok || info.LostAt.IsZero() {
		return nil, nil
	}
	again, err := req.start(ctx, opts)
	if err != nil {
		return nil, nil
	}
	broke := "stream broke at +" + human(ms(info.LostAt.Sub(info.Started)))
	return again, &reportRetry{RequestID: c.ID(), Error: broke, Lost: true}
}
