package session_test

import (
	"context"
	"fmt"

	"github.com/mcpoke/mcpoke/internal/transporttest"
	"github.com/mcpoke/mcpoke/session"
)

// One handle per request: ask whether it can be cancelled, cancel it,
// read it.
func ExampleSession_Request() {
	a, b := transporttest.Pipe()
	server := session.New(b, session.Config{Handlers: map[string]session.Handler{
		"sleep": func(ctx context.Context, _ *session.Incoming) (any, error) {
			<-ctx.Done() // stopped by the client's cancel
			return nil, ctx.Err()
		},
	}})
	defer server.Close()
	client := session.New(a, session.Config{SettleWindow: -1}) // no settle window: cancelled at once
	defer client.Close()

	call, _ := client.Call(context.Background(), "sleep", nil, session.CallOptions{})
	req := client.Request(call.Ref())
	fmt.Println("can cancel:", req.CanCancel() == nil)
	fmt.Println("cancel:", req.Cancel("enough"))
	_, state, err := call.Result()
	fmt.Println(state, err)
	fmt.Println("again:", req.CanCancel())
	// Output:
	// can cancel: true
	// cancel: <nil>
	// cancelled request cancelled: enough
	// again: request cannot be cancelled: it has already ended (cancelled)
}
