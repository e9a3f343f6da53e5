package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
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

// Error codes the modern revision defines (the -32020 to -32099 range it
// reserves).
const (
	CodeHeaderMismatch             = -32020
	CodeMissingClientCapability    = -32021
	CodeUnsupportedProtocolVersion = -32022
)

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
	return &modernMeta{version: version, members: b}
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

// useLegacy leaves the modern era (a failed probe). Callers hold no lock.
func (s *Session) useLegacy() {
	s.mu.Lock()
	s.modern = nil
	s.offered = ""
	s.mu.Unlock()
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

// Explain says in words what an error code of the modern revision means,
// with what its data adds; "" for other codes.
func (e *RPCError) Explain() string {
	switch e.Code {
	case CodeHeaderMismatch:
		return "HeaderMismatch, the HTTP headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*) " +
			"did not match the request body, or one the server requires was missing"
	case CodeMissingClientCapability:
		var d struct {
			Required map[string]json.RawMessage `json:"requiredCapabilities"`
		}
		_ = json.Unmarshal(e.Data, &d)
		why := "MissingRequiredClientCapability, the server needs a client capability this request did not declare"
		if len(d.Required) > 0 {
			names := slices.Sorted(maps.Keys(d.Required))
			why += ": " + strings.Join(names, ", ")
		}
		return why
	case CodeUnsupportedProtocolVersion:
		var d struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}
		_ = json.Unmarshal(e.Data, &d)
		why := "UnsupportedProtocolVersion, the server does not speak the version asked for"
		if d.Requested != "" {
			why = "UnsupportedProtocolVersion, the server does not speak " + d.Requested
		}
		if len(d.Supported) > 0 {
			why += "; it supports " + strings.Join(d.Supported, ", ")
		}
		return why
	}
	return ""
}

// ResultComplete is the resultType of an ordinary result, and what a
// result without one counts as.
const ResultComplete = "complete"

// resultTypeOf reads a result's resultType, "complete" when it has none
// (or it is not a string): clients MUST treat a missing one so.
func resultTypeOf(result json.RawMessage) string {
	if !bytes.Contains(result, []byte(`"resultType"`)) {
		return ResultComplete
	}
	var r struct {
		ResultType string `json:"resultType"`
	}
	if json.Unmarshal(result, &r) != nil || r.ResultType == "" {
		return ResultComplete
	}
	return r.ResultType
}

// lostText says a request was lost, and when, counted from its start.
func lostText(after time.Duration) string {
	return "lost: stream broke at +" + shortDuration(after) + " (no resumption in protocol " + ModernVersion + "; re-issue it under a new id)"
}

// shortDuration writes d as people read a stopwatch: 1.2s, 350ms.
func shortDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s"
}

// serverCancelled takes a modern server's notifications/cancelled: legal
// only to end one of our subscriptions/listen requests, which then ends;
// anything else is flagged and ignored. Callers hold s.mu.
func (s *Session) serverCancelled(id ID, reason string, frame []byte) {
	r := s.table.outgoing(id.raw)
	if r != nil && r.info.Method == "subscriptions/listen" {
		if r.info.State == Pending {
			why := "the server ended the subscription (notifications/cancelled)"
			if reason != "" {
				why += ": " + reason
			}
			r.info.EndedByPeer = why
			s.setState(r, Completed, why)
		}
		return
	}
	what := "request " + id.String() + ", which mcpoke never sent"
	if r != nil {
		what = "request " + id.String() + " (" + r.info.Method + ")"
	}
	s.violate(r, ViolationServerCancel, []byte(id.raw), frame, "notifications/cancelled from the server for "+what+
		": in protocol "+s.modern.version+" a server sends it only to end a subscriptions/listen stream; ignored")
}

// Listening is what a subscriptions/listen request has heard: the
// server's acknowledgement and the notifications tagged with its id.
type Listening struct {
	// Acknowledged is the filter the server agreed to honour, as sent;
	// nil until notifications/subscriptions/acknowledged came.
	Acknowledged json.RawMessage
	AckAt        time.Time
	// Count is how many notifications came on it, the acknowledgement
	// not included; Last keeps the newest maxSubscriptionNotes.
	Count int
	Last  []SubscriptionNote
}

// SubscriptionNote is one notification a subscription delivered.
type SubscriptionNote struct {
	At     time.Time
	Method string
	// Params is the start of the params, at most MaxKept bytes.
	Params json.RawMessage
}

// SubscriptionNotified: a notification tagged with the id of one of our
// subscriptions/listen requests arrived (its acknowledgement included).
type SubscriptionNotified struct {
	Ref  Ref
	Note SubscriptionNote
}

func (SubscriptionNotified) event() {}

// maxSubscriptionNotes bounds the notifications a subscription keeps.
const maxSubscriptionNotes = 50

// subscriptionNote files a modern notification tagged with a
// subscriptionId under the subscriptions/listen request it names. One
// before the acknowledgement breaks the spec's order and is flagged.
// Callers hold no lock.
func (s *Session) subscriptionNote(method string, params json.RawMessage, frame []byte, at time.Time) {
	var p struct {
		Meta struct {
			ID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
		} `json:"_meta"`
		Notifications json.RawMessage `json:"notifications"`
	}
	if !bytes.Contains(params, []byte(MetaSubscriptionID)) || json.Unmarshal(params, &p) != nil || p.Meta.ID == nil {
		return
	}
	id, err := ParseID(p.Meta.ID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.modern == nil || err != nil {
		return
	}
	r := s.table.outgoing(id.raw)
	if r == nil || r.info.Method != "subscriptions/listen" {
		s.violate(r, ViolationSubscriptionUnknown, p.Meta.ID, frame, method+" names subscription "+id.String()+
			", which is no subscriptions/listen request of ours")
		return
	}
	sub := r.info.Listening
	if sub == nil {
		sub = &Listening{}
	} else {
		c := *sub // RequestInfo snapshots share the old one
		sub = &c
	}
	note := SubscriptionNote{At: at, Method: method, Params: kept(params)}
	if method == "notifications/subscriptions/acknowledged" {
		sub.Acknowledged, sub.AckAt = kept(p.Notifications), at
	} else {
		if sub.Acknowledged == nil {
			s.violate(r, ViolationSubscriptionBeforeAck, p.Meta.ID, frame, method+" on subscription "+id.String()+
				" before its acknowledgement, which must come first")
		}
		sub.Count++
		sub.Last = append(sub.Last[max(len(sub.Last)-maxSubscriptionNotes+1, 0):len(sub.Last):len(sub.Last)], note)
	}
	r.info.Listening = sub
	s.emit(SubscriptionNotified{Ref: r.info.Ref(), Note: note})
}
