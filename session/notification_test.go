package session

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcpoke/mcpoke/internal/wire"
	"github.com/mcpoke/mcpoke/transport"
)

// relatedConn delivers what the test pushes, with the request id a
// Streamable HTTP transport puts on frames of a request's own stream.
type relatedConn struct {
	in   chan transport.Message
	mu   sync.Mutex
	sent [][]byte
	once sync.Once
	done chan struct{}
}

func newRelatedConn() *relatedConn {
	return &relatedConn{in: make(chan transport.Message, 16), done: make(chan struct{})}
}

func (c *relatedConn) Send(frame []byte) error {
	c.mu.Lock()
	c.sent = append(c.sent, frame)
	c.mu.Unlock()
	return nil
}

func (c *relatedConn) Recv() (transport.Message, error) {
	select {
	case m := <-c.in:
		return m, nil
	case <-c.done:
		return transport.Message{}, transport.ErrClosed
	}
}

func (c *relatedConn) Close() error { c.once.Do(func() { close(c.done) }); return nil }

func TestNotificationArrivedIsRelatedToTheRequestWhoseStreamItCameOn(t *testing.T) {
	conn := newRelatedConn()
	s := New(conn, Config{})
	defer closeWithin(t, s)
	sub := s.Subscribe()
	defer sub.Close()
	c, err := s.Call(context.Background(), "tools/call", map[string]string{"name": "x"}, CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	log := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}`)
	conn.in <- transport.Message{Kind: wire.KindFrame, Data: log, ID: []byte(c.ID().String())}
	conn.in <- transport.Message{Kind: wire.KindFrame, Data: log} // the GET stream: no request
	conn.in <- transport.Message{Kind: wire.KindFrame, Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), ID: []byte("1")}
	var got []NotificationArrived
	timeout := time.After(hangGuard)
	for len(got) < 2 {
		select {
		case e := <-sub.C:
			if n, ok := e.(NotificationArrived); ok {
				got = append(got, n)
			}
		case <-timeout:
			t.Fatalf("got %d notifications", len(got))
		}
	}
	if got[0].Related != c.Ref() || got[0].Method != "notifications/message" || string(got[0].Params) != `{"level":"info","data":"working"}` {
		t.Errorf("on the request's stream: %+v", got[0])
	}
	if got[1].Related != (Ref{}) {
		t.Errorf("on no request's stream: %+v", got[1])
	}
	if _, err := c.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestNotificationArrivedKeepsNoHugeParams(t *testing.T) {
	conn := newRelatedConn()
	s := New(conn, Config{})
	defer closeWithin(t, s)
	sub := s.Subscribe()
	defer sub.Close()
	big := make([]byte, MaxNotificationKept+10)
	for i := range big {
		big[i] = 'a'
	}
	frame := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + string(big) + `"}}`)
	conn.in <- transport.Message{Kind: wire.KindFrame, Data: frame}
	select {
	case e := <-sub.C:
		n, ok := e.(NotificationArrived)
		if !ok || n.Params != nil || n.Size != len(big)+11 {
			t.Errorf("%T params %d size %d", e, len(n.Params), n.Size)
		}
	case <-time.After(hangGuard):
		t.Fatal("no event")
	}
}
