package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// DiscoverOptions are what server/discover declares, and how long it may
// take.
type DiscoverOptions struct {
	Era2026Options
	// Timeout bounds the wait for the answer; 0 means none but ctx.
	Timeout time.Duration
	// QuietTimeout: when Timeout expires, nothing is sent to cancel the
	// request (see CallOptions.QuietTimeout): a probe that got no answer
	// went, as far as we can tell, to a legacy server.
	QuietTimeout bool
	// HoldTimeout keeps Timeout from running out while it says true (see
	// CallOptions.HoldTimeout): the probe's clock stops while a login
	// waits for the person.
	HoldTimeout func() bool
}

// VersionRefusedError means the server does not speak the version we asked
// for. Supported lists what it does speak, from the data of an
// UnsupportedProtocolVersion error (-32022) or from server/discover's
// supportedVersions.
type VersionRefusedError struct {
	Requested string
	Supported []string
	// Err is the server's error, nil when server/discover answered but did
	// not list the version.
	Err *RPCError
}

// Error implements error.
func (e *VersionRefusedError) Error() string {
	sup := "it named none it supports"
	switch {
	case slices.Contains(e.Supported, e.Requested):
		sup = "yet it lists " + clipName(e.Requested) + " among those it supports (" + NameList(e.Supported) + "): the server contradicts itself"
	case len(e.Supported) > 0:
		sup = "it supports " + NameList(e.Supported)
	}
	how := "server/discover does not list it"
	if e.Err != nil {
		how = e.Err.Error()
	}
	return fmt.Sprintf("the server does not support protocol %s (%s); %s", clipName(e.Requested), how, sup)
}

// Unwrap returns the server's error.
func (e *VersionRefusedError) Unwrap() error {
	if e.Err == nil {
		return nil
	}
	return e.Err
}

// AsVersionRefused reads err as a refusal of the protocol version: a
// *VersionRefusedError, or an *RPCError with code -32022 whose data names
// the supported versions. requested fills in what the data leaves out.
func AsVersionRefused(err error, requested string) (*VersionRefusedError, bool) {
	var vr *VersionRefusedError
	if errors.As(err, &vr) {
		return vr, true
	}
	var rpcErr *RPCError
	if !errors.As(err, &rpcErr) || rpcErr.Code != CodeUnsupportedProtocolVersion {
		return nil, false
	}
	var d struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}
	_ = json.Unmarshal(rpcErr.Data, &d)
	if d.Requested != "" {
		requested = d.Requested
	}
	return &VersionRefusedError{Requested: requested, Supported: d.Supported, Err: rpcErr}, true
}

// PickVersion chooses, from the versions a server supports, the one to
// use: the newest modern version both sides speak, else the newest legacy
// one (to be reached through initialize). ok is false when none is shared.
func PickVersion(supported []string) (version string, ok bool) {
	for _, list := range [][]string{Era2026Versions, SupportedVersions} {
		for _, v := range slices.Backward(list) {
			if slices.Contains(supported, v) {
				return v, true
			}
		}
	}
	return "", false
}

// discoverResult is server/discover's answer (DiscoverResult).
type discoverResult struct {
	SupportedVersions []string        `json:"supportedVersions"`
	Capabilities      json.RawMessage `json:"capabilities"`
	Instructions      string          `json:"instructions"`
	ResultType        string          `json:"resultType"`
	Meta              struct {
		ServerInfo *Implementation `json:"io.modelcontextprotocol/serverInfo"`
	} `json:"_meta"`
}

// Discover sends server/discover in the modern era, with opts in its
// _meta. When the server answers and lists the version asked for, the
// session stays modern: every later request carries the same _meta, and
// Peer says what the server is. On any error the session is left legacy,
// ready for Initialize or another Discover; a *VersionRefusedError (see
// AsVersionRefused) says which versions the server speaks instead.
func (s *Session) Discover(ctx context.Context, opts DiscoverOptions) (PeerInfo, error) {
	s.mu.Lock()
	prevModern, prevOffered := s.era2026, s.offered
	s.mu.Unlock()
	// On failure the session goes back to what it was: legacy before a
	// probe, or the 2025 session initialize made before a second try.
	restore := func() {
		s.mu.Lock()
		s.era2026, s.offered = prevModern, prevOffered
		s.mu.Unlock()
	}
	s.UseEra2026(opts.Era2026Options)
	s.mu.Lock()
	version := s.era2026.version
	s.mu.Unlock()
	c, err := s.call(ctx, "server/discover", nil, CallOptions{NoProgressToken: true, Timeout: opts.Timeout, QuietTimeout: opts.QuietTimeout, HoldTimeout: opts.HoldTimeout}, false)
	var res json.RawMessage
	if err == nil {
		s.mu.Lock()
		s.lastDiscover = c.Ref()
		s.mu.Unlock()
		select {
		case <-c.done:
			res, err = c.resultNow(), c.err
		case <-ctx.Done():
			_ = s.Request(c.Ref()).Cancel("context: " + context.Cause(ctx).Error())
			err = ctx.Err()
		}
	}
	if err != nil {
		restore()
		if vr, ok := AsVersionRefused(err, version); ok {
			return PeerInfo{}, vr
		}
		return PeerInfo{}, fmt.Errorf("server/discover: %w", err)
	}
	var r discoverResult
	if err := json.Unmarshal(res, &r); err != nil {
		restore()
		return PeerInfo{}, fmt.Errorf("server/discover: malformed result: %w", err)
	}
	if r.SupportedVersions == nil {
		// Not a DiscoverResult (a legacy server may answer anything).
		restore()
		return PeerInfo{}, errors.New("server/discover: the result has no supportedVersions, so it is no DiscoverResult")
	}
	if !slices.Contains(r.SupportedVersions, version) {
		restore()
		return PeerInfo{}, &VersionRefusedError{Requested: version, Supported: r.SupportedVersions}
	}
	peer := PeerInfo{ProtocolVersion: version, Capabilities: r.Capabilities, Instructions: r.Instructions,
		SupportedVersions: r.SupportedVersions}
	if r.Meta.ServerInfo != nil {
		peer.ServerInfo = *r.Meta.ServerInfo
	}
	peer = peer.bounded()
	s.mu.Lock()
	s.peer = peer
	s.mu.Unlock()
	return peer, nil
}

// LateDiscoverVersions returns the supportedVersions of a DiscoverResult
// that answered the last server/discover after it had timed out (the era
// probe of a slow 2026-07-28 server); nil when no such answer came.
func (s *Session) LateDiscoverVersions() []string {
	s.mu.Lock()
	ref := s.lastDiscover
	s.mu.Unlock()
	if ref == (Ref{}) {
		return nil
	}
	info, ok := s.Request(ref).Info()
	if !ok {
		return nil
	}
	for _, f := range info.Late {
		if f.Kind != LateResponse {
			continue
		}
		var m struct {
			Result discoverResult `json:"result"`
		}
		if json.Unmarshal(f.Data, &m) == nil && len(m.Result.SupportedVersions) > 0 {
			return m.Result.SupportedVersions
		}
	}
	return nil
}

// SetNegotiation records in words how the protocol version was reached,
// for Peer to show (such as "server/discover" or "initialize, after
// server/discover failed: ...").
func (s *Session) SetNegotiation(how string) {
	s.mu.Lock()
	s.peer.Negotiation = how
	s.mu.Unlock()
}
