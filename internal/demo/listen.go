package demo

import (
	"context"

	"github.com/mcpoke/mcpoke/session"
)

// listen answers subscriptions/listen: the acknowledgement, tagged with
// the request's id, agreeing to nothing (the demo's lists never change),
// then nothing until the client closes the subscription.
func (srv *server) listen(ctx context.Context, in *session.Incoming) (any, error) {
	ack := map[string]any{"_meta": map[string]any{session.MetaSubscriptionID: in.ID}, "notifications": map[string]any{}}
	if err := in.Session().Notify("notifications/subscriptions/acknowledged", ack); err != nil {
		return nil, err
	}
	srv.log.Info("subscription open", "id", in.ID.String())
	<-ctx.Done()
	return nil, ctx.Err()
}
