package proxy

import (
	"context"
	"net"
	"net/http"
)

type requestIDKey struct{}

// withRequestID carries the id of the request a POST held to the
// response it gets.
func withRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

func requestIDOf(r *http.Request) string {
	id, _ := r.Context().Value(requestIDKey{}).(string)
	return id
}

func splitHostPort(addr string) (string, string, error) { return net.SplitHostPort(addr) }
