package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpoke/mcpoke/internal/mcp"
	"github.com/mcpoke/mcpoke/session"
)

// listen answers subscriptions/listen: the acknowledgement, tagged with
// the request's id, agreeing to the resource subscriptions it can honour
// (the demo's lists never change, so no list change), then, when
// demo://ticker is among them, notifications/resources/updated at every
// tick, until the client closes the subscription.
func (srv *server) listen(ctx context.Context, in *session.Incoming) (any, error) {
	var p struct {
		Notifications mcp.ListenFilter `json:"notifications"`
	}
	if err := json.Unmarshal(in.Params, &p); err != nil {
		return nil, invalidParams("subscriptions/listen: params must be an object with notifications: %v", err)
	}
	agreed := map[string]any{}
	var uris []string
	ticker := false
	for _, uri := range p.Notifications.ResourceSubscriptions {
		if srv.known(uri) {
			uris = append(uris, uri)
			ticker = ticker || uri == tickerURI
		}
	}
	if len(uris) > 0 {
		agreed["resourceSubscriptions"] = uris
	}
	tag := map[string]any{session.MetaSubscriptionID: in.ID}
	s := in.Session()
	if err := s.Notify("notifications/subscriptions/acknowledged", map[string]any{"_meta": tag, "notifications": agreed}); err != nil {
		return nil, err
	}
	srv.log.Info("subscription open", "id", in.ID.String(), "resources", fmt.Sprint(uris))
	if !ticker {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	for {
		next := srv.started.Add(time.Duration(srv.tick()+1) * srv.tickEvery)
		t := time.NewTimer(time.Until(next))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		if err := s.Notify(mcp.ResourceUpdated, map[string]any{"_meta": tag, "uri": tickerURI}); err != nil {
			return nil, err
		}
	}
}
