package mcp

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpoke/mcpoke/session"
)

// ErrNotDeclared means the server did not declare the capability a method
// needs, so mcpoke does not send it (MCP: "Only use capabilities that
// were successfully negotiated"). A *CapabilityError says which.
var ErrNotDeclared = errors.New("capability not declared by the server")

// CapabilityError is the refusal to send a method whose capability the
// server did not declare. It matches ErrNotDeclared with errors.Is.
type CapabilityError struct {
	Method     string // such as tools/call
	Capability string // such as tools
	// Why is set when the capabilities object could not be read at all.
	Why string
	// Handshake is where the capabilities were declared: initialize
	// (when empty) or, in 2026-07-28, server/discover.
	Handshake string
}

// Error implements error. It names no flag: the CLI and the TUI each say
// how their user sends the method anyway.
func (e *CapabilityError) Error() string {
	handshake := e.Handshake
	if handshake == "" {
		handshake = "initialize"
	}
	what := fmt.Sprintf("the server did not declare the %s capability in %s", e.Capability, handshake)
	if e.Why != "" {
		what = fmt.Sprintf("the server's capabilities could not be read (%s)", e.Why)
	}
	return what + ", so mcpoke does not send " + e.Method
}

// Is makes errors.Is(err, ErrNotDeclared) true.
func (e *CapabilityError) Is(target error) bool { return target == ErrNotDeclared }

// capabilityOf names the server capability a client request needs, ""
// for those every server answers (ping) or that mcpoke does not know.
func capabilityOf(method string) string {
	prefix, _, _ := strings.Cut(method, "/")
	switch prefix {
	case "tools", "prompts", "resources", "logging":
		return prefix
	case "completion":
		return "completions"
	case "tasks":
		// tasks/get and tasks/result need tasks at all; list and cancel
		// have capabilities of their own.
		switch method {
		case "tasks/list":
			return "tasks.list"
		case "tasks/cancel":
			return "tasks.cancel"
		}
		return "tasks"
	}
	return ""
}

// CheckDeclared returns a *CapabilityError when the server (peer, from
// initialize) did not declare the capability method needs, nil when it
// did or none is needed. Call it before sending, unless forced. A peer
// that never answered initialize (a session without a handshake, as in
// tests) declared nothing to hold it to: nil.
func CheckDeclared(peer session.PeerInfo, method string) error {
	name := capabilityOf(method)
	if name == "" || peer.ProtocolVersion == "" {
		return nil
	}
	caps, err := ParseServerCapabilities(peer.Capabilities)
	if err != nil {
		return &CapabilityError{Method: method, Capability: name, Why: err.Error(), Handshake: handshakeOf(peer)}
	}
	declared := false
	switch name {
	case "tools":
		declared = caps.Tools != nil
	case "prompts":
		declared = caps.Prompts != nil
	case "resources":
		declared = caps.Resources != nil
		if method == "resources/subscribe" || method == "resources/unsubscribe" {
			// Subscribing has an option of its own within resources.
			declared = declared && caps.Resources.Subscribe
			if !declared {
				return &CapabilityError{Method: method, Capability: "resources.subscribe", Handshake: handshakeOf(peer)}
			}
		}
	case "logging":
		declared = caps.Logging
	case "completions":
		declared = caps.Completions
	case "tasks":
		declared = caps.Tasks != nil
	case "tasks.list":
		declared = caps.Tasks != nil && caps.Tasks.List
	case "tasks.cancel":
		declared = caps.Tasks != nil && caps.Tasks.Cancel
	}
	if !declared {
		return &CapabilityError{Method: method, Capability: name, Handshake: handshakeOf(peer)}
	}
	return nil
}

// handshakeOf is where peer declared its capabilities.
func handshakeOf(peer session.PeerInfo) string {
	if peer.Era2026() {
		return "server/discover"
	}
	return "initialize"
}
