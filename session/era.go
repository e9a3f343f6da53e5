package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpoke/mcpoke/transport"
)

// ModernVersion is the protocol revision without a handshake: version,
// capabilities and identity travel in every request's _meta, a server is
// found with server/discover, and over Streamable HTTP closing a request's
// stream is its cancellation.
const ModernVersion = "2026-07-28"

// ModernVersions are the handshake-less versions mcpoke speaks, oldest
// first; SupportedVersions are the ones reached through initialize.
var ModernVersions = []string{ModernVersion}

// Keys of _meta that the modern revision reserves.
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

// IsModern reports whether version is a handshake-less revision
// (2026-07-28 or later). Versions are dates, so they order as text.
func IsModern(version string) bool {
	return len(version) == len("2026-07-28") && version[4] == '-' && version[7] == '-' && version >= ModernVersion
}

// Speaks reports whether mcpoke implements version, of either era.
func Speaks(version string) bool {
	return slices.Contains(SupportedVersions, version) || slices.Contains(ModernVersions, version)
}

// AllVersions lists every version mcpoke speaks, legacy then modern.
func AllVersions() []string { return slices.Concat(SupportedVersions, ModernVersions) }

// removedInModern are the methods the modern revision removed: a session
// in that era refuses to send them (ErrNotInEra).
var removedInModern = map[string]string{
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

// RemovedInModern says why method is not part of the modern revision;
// removed is false for a method it keeps. A server that speaks both eras
// refuses such a method in a modern request as unknown (-32601).
func RemovedInModern(method string) (why string, removed bool) {
	why, removed = removedInModern[method]
	return why, removed
}

// ErrNotInEra: the method does not exist in the protocol version the
// session speaks, so the session does not send it. A *NotInEraError says
// which and why.
var ErrNotInEra = errors.New("method not part of the protocol version in use")

// NotInEraError is the refusal to send a method the modern revision
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

// modernMeta is what every request of a modern session carries in _meta:
// the members, already encoded, without braces.
type modernMeta struct {
	version string
	members []byte
	// logLevel goes with every request that names none (SetLogLevel).
	logLevel string
	// tasks: the capabilities declare the tasks extension.
	tasks bool
}

func newModernMeta(version string, client Implementation, caps json.RawMessage) *modernMeta {
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
	return &modernMeta{version: version, members: b, tasks: declaresExtension(caps, ExtensionTasks)}
}

// mirror is what a request's Streamable HTTP POST repeats of its body in
// headers under this era (transport.Mirror): the version, the name, URI or
// task id its method names, and the Mcp-Param headers of a tools/call.
// tool is params.name of a tools/call, read already.
func (m *modernMeta) mirror(method, tool string, params json.RawMessage, paramHeaders map[string]string) *transport.Mirror {
	if !transport.IsModernVersion(m.version) {
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
// of the tasks extension: a tools/call of a modern session that declared
// it. Callers hold s.mu.
func (s *Session) takesTask(r *request) bool {
	return s.modern != nil && s.modern.tasks && r.info.Method == "tools/call" && r.forTask() == nil
}

// appendMembers appends the era's members to b (which holds other
// members, or nothing), with the log level when one is asked for.
func (m *modernMeta) appendMembers(b []byte, logLevel string) []byte {
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

// Modern reports whether the session speaks a modern revision: requests
// carry _meta, and cancelling follows that era's rule.
func (s *Session) Modern() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.modern != nil
}

// ModernOptions say what a modern session declares in every request.
type ModernOptions struct {
	// ProtocolVersion; default ModernVersion.
	ProtocolVersion string
	ClientInfo      Implementation
	// Capabilities of the client; default {}.
	Capabilities json.RawMessage
}

// UseModern switches the session to a modern revision: from now on every
// request carries the version, capabilities and clientInfo in _meta. It
// is what Discover does first; call it alone to skip server/discover.
func (s *Session) UseModern(opts ModernOptions) {
	if opts.ProtocolVersion == "" {
		opts.ProtocolVersion = ModernVersion
	}
	m := newModernMeta(opts.ProtocolVersion, opts.ClientInfo, opts.Capabilities)
	s.mu.Lock()
	s.modern = m
	s.offered = opts.ProtocolVersion
	s.mu.Unlock()
}

// SetLogLevel asks a modern server for notifications/message from level
// up about every request sent from now on (_meta
// io.modelcontextprotocol/logLevel; "" for none): the modern revision's
// logging/setLevel, which it removed. It fails in a legacy session, whose
// level is set with logging/setLevel.
func (s *Session) SetLogLevel(level string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.modern == nil {
		return errors.New("the log level goes in each request only in protocol " + ModernVersion + "; this session sets it with logging/setLevel")
	}
	m := *s.modern
	m.logLevel = level
	s.modern = &m
	return nil
}

// refuseInEra returns a *NotInEraError when the session is modern and
// method was removed from that revision. Callers hold s.mu.
func (s *Session) refuseInEra(method string) error {
	if s.modern == nil {
		return nil
	}
	if why, removed := removedInModern[method]; removed {
		return &NotInEraError{Method: method, Version: s.modern.version, Why: why}
	}
	return nil
}
