package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpoke/mcpoke/transport"
)

// Era2026Version is the protocol revision without a handshake: version,
// capabilities and identity travel in every request's _meta, a server is
// found with server/discover, and over Streamable HTTP closing a request's
// stream is its cancellation.
const Era2026Version = "2026-07-28"

// Era2026Versions are the handshake-less versions mcpoke speaks, oldest
// first; SupportedVersions are the ones reached through initialize.
var Era2026Versions = []string{Era2026Version}

// Keys of _meta that 2026-07-28 reserves.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// ExtensionTasks names the tasks extension of 2026-07-28 in capabilities'
// extensions: a client that declares it takes a CreateTaskResult
// (resultType "task") for any tools/call.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// IsEra2026 reports whether version is a handshake-less revision
// (2026-07-28 or later). Versions are dates, so they order as text.
func IsEra2026(version string) bool {
	return len(version) == len("2026-07-28") && version[4] == '-' && version[7] == '-' && version >= Era2026Version
}

// Speaks reports whether mcpoke implements version, of either era.
func Speaks(version string) bool {
	return slices.Contains(SupportedVersions, version) || slices.Contains(Era2026Versions, version)
}

// AllVersions lists every version mcpoke speaks, 2025 and earlier, then 2026.
func AllVersions() []string { return slices.Concat(SupportedVersions, Era2026Versions) }

// removedIn2026 are the methods 2026-07-28 removed: a session
// in that era refuses to send them (ErrNotInEra).
var removedIn2026 = map[string]string{
	"initialize":                         "there is no handshake; server/discover tells what the server is",
	"notifications/initialized":          "there is no handshake",
	"ping":                               "ping was removed; server/discover is the cheapest request",
	"logging/setLevel":                   "the log level goes in each request's _meta (io.modelcontextprotocol/logLevel)",
	"resources/subscribe":                "subscriptions/listen replaced it",
	"resources/unsubscribe":              "closing the subscriptions/listen stream replaced it",
	"notifications/roots/list_changed":   "roots list changes are no longer notified",
	"notifications/elicitation/complete": "retrying the original request replaced it",
	"tasks/result":                       "tasks are the " + ExtensionTasks + " extension, whose tasks/get carries the result",
	"tasks/list":                         "tasks are the " + ExtensionTasks + " extension, which has no list",
}

// RemovedIn2026 says why method is not part of 2026-07-28;
// removed is false for a method it keeps. A server that speaks both eras
// refuses such a method in a 2026-07-28 request as unknown (-32601).
func RemovedIn2026(method string) (why string, removed bool) {
	why, removed = removedIn2026[method]
	return why, removed
}

// ErrNotInEra means the method does not exist in the protocol version the
// session speaks, so the session does not send it. A *NotInEraError says
// which and why.
var ErrNotInEra = errors.New("method not part of the protocol version in use")

// NotInEraError is the refusal to send a method 2026-07-28
// removed.
type NotInEraError struct {
	Method, Version, Why string
}

// Error implements error.
func (e *NotInEraError) Error() string {
	return fmt.Sprintf("%s is not part of protocol %s (%s), so mcpoke does not send it", e.Method, e.Version, e.Why)
}

// Is makes errors.Is(err, ErrNotInEra) true.
func (e *NotInEraError) Is(target error) bool { return target == ErrNotInEra }

// era2026Meta is what every request of a 2026-07-28 session carries in _meta:
// the members, already encoded, without braces.
type era2026Meta struct {
	version string
	members []byte
	// logLevel goes with every request that names none (SetLogLevel).
	logLevel string
	// tasks: the capabilities declare the tasks extension.
	tasks bool
}

func newEra2026Meta(version string, client Implementation, caps json.RawMessage) *era2026Meta {
	if len(caps) == 0 {
		caps = json.RawMessage(`{}`)
	}
	info, _ := json.Marshal(client)
	b := appendString(nil, MetaProtocolVersion)
	b = append(b, ':')
	b = appendString(b, version)
	b = append(b, ',')
	b = appendString(b, MetaClientCapabilities)
	b = append(b, ':')
	b = append(b, compactJSON(caps)...)
	b = append(b, ',')
	b = appendString(b, MetaClientInfo)
	b = append(b, ':')
	b = append(b, info...)
	return &era2026Meta{version: version, members: b, tasks: declaresExtension(caps, ExtensionTasks)}
}

// mirror is what a request's Streamable HTTP POST repeats of its body in
// headers under this era (transport.Mirror): the version, the name, URI or
// task id its method names, and the Mcp-Param headers of a tools/call.
// tool is params.name of a tools/call, read already.
func (m *era2026Meta) mirror(method, tool string, params json.RawMessage, paramHeaders map[string]string) *transport.Mirror {
	if !transport.IsStatelessVersion(m.version) {
		return nil
	}
	h := &transport.Mirror{Version: m.version, Params: paramHeaders}
	switch key := transport.NamedParam(method); {
	case key == "":
	case method == "tools/call" && tool != "":
		h.Name, h.HasName = tool, true
	default:
		if v := member(params, key); len(v) > 0 && v[0] == '"' {
			h.Name, h.HasName = stringValue(v), true
		}
	}
	return h
}

// declaresExtension reports whether client capabilities declare the
// extension name (an object, empty or not, in extensions).
func declaresExtension(caps json.RawMessage, name string) bool {
	var c struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(caps, &c) != nil {
		return false
	}
	v := bytes.TrimSpace(c.Extensions[name])
	return len(v) > 0 && v[0] == '{'
}

// takesTask reports whether r may be answered with a CreateTaskResult
// of the tasks extension: a tools/call of a 2026-07-28 session that declared
// it. Callers hold s.mu.
func (s *Session) takesTask(r *request) bool {
	return s.era2026 != nil && s.era2026.tasks && r.info.Method == "tools/call" && r.forTask() == nil
}

// appendMembers appends the era's members to b (which holds other
// members, or nothing), with the log level when one is asked for.
func (m *era2026Meta) appendMembers(b []byte, logLevel string) []byte {
	if len(b) > 0 {
		b = append(b, ',')
	}
	b = append(b, m.members...)
	if logLevel == "" {
		logLevel = m.logLevel
	}
	if logLevel != "" {
		b = append(b, ',')
		b = appendString(b, MetaLogLevel)
		b = append(b, ':')
		b = appendString(b, logLevel)
	}
	return b
}

// compactJSON drops insignificant space, so that the members stay one line.
func compactJSON(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return []byte(`{}`)
	}
	return b.Bytes()
}

// Era2026 reports whether the session speaks 2026-07-28 or later: requests
// carry _meta, and cancelling follows that era's rule.
func (s *Session) Era2026() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.era2026 != nil
}

// Era2026Options say what a 2026-07-28 session declares in every request.
type Era2026Options struct {
	// ProtocolVersion; default Era2026Version.
	ProtocolVersion string
	ClientInfo      Implementation
	// Capabilities of the client; default {}.
	Capabilities json.RawMessage
}

// UseEra2026 switches the session to 2026-07-28 or later: from now on every
// request carries the version, capabilities and clientInfo in _meta. It
// is what Discover does first; call it alone to skip server/discover.
func (s *Session) UseEra2026(opts Era2026Options) {
	if opts.ProtocolVersion == "" {
		opts.ProtocolVersion = Era2026Version
	}
	m := newEra2026Meta(opts.ProtocolVersion, opts.ClientInfo, opts.Capabilities)
	s.mu.Lock()
	s.era2026 = m
	s.offered = opts.ProtocolVersion
	s.mu.Unlock()
}

// SetLogLevel asks a 2026-07-28 server for notifications/message from level
// up about every request sent from now on (_meta
// io.modelcontextprotocol/logLevel; "" for none): 2026-07-28's
// logging/setLevel, which it removed. It fails in a 2025 session, whose
// level is set with logging/setLevel.
func (s *Session) SetLogLevel(level string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.era2026 == nil {
		return errors.New("the log level goes in each request only in protocol " + Era2026Version + "; this session sets it with logging/setLevel")
	}
	m := *s.era2026
	m.logLevel = level
	s.era2026 = &m
	return nil
}

// refuseInEra returns a *NotInEraError when the session is modern and
// method was removed from that revision. Callers hold s.mu.
func (s *Session) refuseInEra(method string) error {
	if s.era2026 == nil {
		return nil
	}
	if why, removed := removedIn2026[method]; removed {
		return &NotInEraError{Method: method, Version: s.era2026.version, Why: why}
	}
	return nil
}
