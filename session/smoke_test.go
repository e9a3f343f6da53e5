package session

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/transporttest"
)

func TestSmokeRoundTripAndCancel(t *testing.T) {
	a, b := transporttest.Pipe()
	srv := New(b, Config{Handlers: map[string]Handler{
		"echo": func(ctx context.Context, in *Incoming) (any, error) { return in.Params, nil },
		"block": func(ctx context.Context, in *Incoming) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}})
	cli := New(a, Config{SettleWindow: 10 * time.Millisecond})
	defer closeWithin(t, srv)
	defer closeWithin(t, cli)
	// The deadline only turns a hang into a failure (context deadline exceeded).
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	res, err := cli.Do(ctx, "echo", map[string]int{"x": 1}, CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	json.Unmarshal(res, &got)
	if string(got["x"]) != "1" {
		t.Fatalf("got %s", res)
	}
	c, err := cli.Call(context.Background(), "block", nil, CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.Request(c.Ref()).Cancel("bye"); err != nil {
		t.Fatal(err)
	}
	_, st, err := waitResult(t, c)
	if st != Cancelled || err == nil {
		t.Fatalf("state %v err %v", st, err)
	}
}
