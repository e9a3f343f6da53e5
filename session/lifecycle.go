package session

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// SupportedVersions are the protocol versions mcpoke speaks through initialize, oldest first.
var SupportedVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// LatestVersion is what Initialize offers by default.
const LatestVersion = "2025-11-25"

// Implementation is clientInfo or serverInfo.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// PeerInfo is what the server said about itself in initialize, or in
// server/discover in the modern era.
type PeerInfo struct {
	ProtocolVersion string          `json:"protocolVersion"`
	ServerInfo      Implementation  `json:"serverInfo"`
	Capabilities    json.RawMessage `json:"capabilities,omitempty"`
	Instructions    string          `json:"instructions,omitempty"`
	// SupportedVersions is what server/discover listed; nil after
	// initialize.
	SupportedVersions []string `json:"-"`
	// Negotiation says in words how the version was reached (see
	// Session.SetNegotiation); "" when nobody said.
	Negotiation string `json:"-"`
}

// Era2026 reports whether the version in use is a handshake-less one.
func (p PeerInfo) Era2026() bool { return IsEra2026(p.ProtocolVersion) }

// Era names the version's era for display: "modern" or "legacy"; ""
// before a version was reached.
func (p PeerInfo) Era() string {
	switch {
	case p.ProtocolVersion == "":
		return ""
	case p.Era2026():
		return "modern"
	}
	return "legacy"
}

// InitializeOptions are what the client offers.
type InitializeOptions struct {
	// ProtocolVersion to offer; default LatestVersion.
	ProtocolVersion string
	ClientInfo      Implementation
	// Capabilities of the client; default {}.
	Capabilities json.RawMessage
}

// UnsupportedVersionError means the server chose a protocol version we do not
// speak.
type UnsupportedVersionError struct{ Version string }

// Error implements error.
func (e *UnsupportedVersionError) Error() string {
	return fmt.Sprintf("server answered with protocol version %q, which mcpoke does not support (supported: %s)",
		e.Version, strings.Join(SupportedVersions, ", "))
}

// Initialize runs the client side of the MCP handshake: initialize, check
// the version the server chose, then notifications/initialized.
func (s *Session) Initialize(ctx context.Context, opts InitializeOptions) (PeerInfo, error) {
	if opts.ProtocolVersion == "" {
		opts.ProtocolVersion = LatestVersion
	}
	if opts.Capabilities == nil {
		opts.Capabilities = json.RawMessage(`{}`)
	}
	params := struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      Implementation  `json:"clientInfo"`
	}{opts.ProtocolVersion, opts.Capabilities, opts.ClientInfo}
	s.mu.Lock()
	s.offered = opts.ProtocolVersion
	s.mu.Unlock()
	res, err := s.Do(ctx, "initialize", params, CallOptions{NoProgressToken: true})
	if err != nil {
		return PeerInfo{}, fmt.Errorf("initialize: %w", err)
	}
	var peer PeerInfo
	if err := json.Unmarshal(res, &peer); err != nil {
		return PeerInfo{}, fmt.Errorf("initialize: malformed result: %w", err)
	}
	peer = peer.bounded()
	if !slices.Contains(SupportedVersions, peer.ProtocolVersion) {
		return peer, &UnsupportedVersionError{Version: peer.ProtocolVersion}
	}
	s.mu.Lock()
	peer.Negotiation = s.peer.Negotiation
	s.peer = peer
	s.mu.Unlock()
	if err := s.Notify("notifications/initialized", nil); err != nil {
		return peer, fmt.Errorf("initialized notification: %w", err)
	}
	return peer, nil
}

// protocolVersion is the version the rules of the wire follow: the one
// negotiated, or while initialize is answered the one offered; "" when
// unknown (a server side session). Callers hold s.mu.
func (s *Session) protocolVersion() string {
	if s.peer.ProtocolVersion != "" {
		return s.peer.ProtocolVersion
	}
	return s.offered
}

// Peer returns what the server said in initialize; zero before.
func (s *Session) Peer() PeerInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peer
}
