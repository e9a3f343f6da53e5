package proxy

import "strings"

// EventProxyCancelled starts the relay event that the proxy cancelled a
// host's request on the host's behalf (the kill switch); the request's
// JSON id follows, to the end of the event, as EventStreamClosed's does.
const EventProxyCancelled = "mcpoke proxy cancelled, on the host's behalf, request "

// ProxyCancelledID is the id in an EventProxyCancelled event.
func ProxyCancelledID(event string) (string, bool) {
	return strings.CutPrefix(event, EventProxyCancelled)
}
