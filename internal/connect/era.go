package connect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpoke/mcpoke/session"
)

// ProtocolAuto is Options.Protocol's value for choosing the era the spec's
// way: server/discover first, initialize when that fails.
const ProtocolAuto = "auto"

// DefaultProbeTimeout bounds the server/discover probe of ProtocolAuto
// over HTTP: a legacy server may never answer a request before
// initialize, and the spec then says to fall back. Its clock stops while a
// login waits for the person. A server mcpoke starts itself gets as long
// as initialize would (Options.InitTimeout): its first answer waits for
// its start, which npx or uvx on a cold cache makes slow. A slow modern
// server that answers later still wins when its initialize is refused
// with the versions it speaks; when initialize succeeds instead, the
// session says that its era is a fallback (see lateModern).
const DefaultProbeTimeout = 3 * time.Second

// eras remembers, per server, the version ProtocolAuto reached, for the
// life of this process: a reconnect goes straight to that era (the spec's
// "cache the result for the lifetime of the server"), and probes again if
// it fails.
var eras sync.Map // eraKey → version

func eraKey(s Spec) string {
	if s.URL != "" {
		return "url " + s.URL
	}
	return "cmd " + s.Dir + "\x00" + s.CommandLine()
}

// ForgetEras drops what ProtocolAuto remembered; for tests.
func ForgetEras() { eras.Clear() }

// handshake reaches a protocol version with the server as opts.Protocol
// says: "" initialize with the latest legacy version; a legacy version
// initialize with it; a modern version server/discover with it, no
// fallback; auto the probe. stage is kept up to date for messages.
func (c *Conn) handshake(ctx context.Context) (session.PeerInfo, error) {
	p := c.opts.Protocol
	switch {
	case p == ProtocolAuto:
		return c.negotiate(ctx)
	case session.IsEra2026(p):
		peer, err := c.discover(ctx, p, 0)
		if vr, ok := refusedListingOurs(err); ok {
			// The server refused p yet lists it: the spec's negotiation
			// says to retry with a version from its list, which is p.
			if peer, err = c.discover(ctx, p, 0); err == nil {
				return c.done(peer, "server/discover, again after the server refused "+p+" and named "+session.NameList(vr.Supported))
			}
		}
		if err != nil {
			var vr *session.VersionRefusedError
			if !errors.As(err, &vr) {
				err = fmt.Errorf("%w; --protocol %s speaks only that version (a legacy server answers initialize: try --protocol auto)", err, p)
			}
			return peer, err
		}
		return c.done(peer, "server/discover, as --protocol says")
	}
	peer, err := c.initialize(p)
	if err != nil {
		return peer, err
	}
	how := "initialize"
	if p != "" {
		how += ", as --protocol says"
	}
	return c.done(peer, how)
}

// negotiate is ProtocolAuto: the remembered era, else server/discover;
// a DiscoverResult means modern, an UnsupportedProtocolVersion error
// names the versions to pick from, and anything else (an error, no
// answer within the probe timeout) means a legacy server: initialize. An
// initialize refused with UnsupportedProtocolVersion turns modern.
func (c *Conn) negotiate(ctx context.Context) (session.PeerInfo, error) {
	key := eraKey(c.Spec)
	if v, ok := eras.Load(key); ok && !session.IsEra2026(v.(string)) {
		peer, err := c.initialize(v.(string))
		if err == nil {
			return c.done(peer, "initialize, the era found before")
		}
		if !c.Session.Alive() {
			return peer, err
		}
		eras.Delete(key) // the cached assumption failed: probe again
	}
	failedBefore := c.loginFailures()
	peer, err := c.probe(ctx)
	if err == nil {
		eras.Store(key, peer.ProtocolVersion)
		return c.done(peer, "server/discover")
	}
	if c.loginFailures() > failedBefore {
		// The probe reached a server that wants a login, and the login
		// failed: initialize would only run it again (a second browser
		// prompt for the person) and fail the same way.
		return session.PeerInfo{}, fmt.Errorf("%w (the login failed during server/discover, so mcpoke does not fall back to initialize, which would log in again)", err)
	}
	var vr *session.VersionRefusedError
	if errors.As(err, &vr) {
		return c.afterRefusal(ctx, key, vr, "server/discover")
	}
	var unsent *session.SendError
	if !c.Session.Alive() || ctx.Err() != nil || errors.As(err, &unsent) {
		// No server answered: there is nothing to fall back to.
		return session.PeerInfo{}, err
	}
	if modernError(err) {
		// A modern server that refused the request itself (a header or a
		// capability): falling back would only hide that.
		return session.PeerInfo{}, err
	}
	probeErr := err
	c.probeTimedOut.Store(errors.Is(err, session.ErrTimedOut))
	peer, err = c.initialize(session.LatestVersion)
	if errors.As(err, &vr) {
		return c.afterRefusal(ctx, key, vr, "initialize")
	}
	if err != nil {
		// Both failed: say why the probe did too, or a modern server's
		// malformed DiscoverResult hides behind initialize's failure.
		return peer, fmt.Errorf("%w (after server/discover failed: %s)", err, strings.TrimPrefix(probeErr.Error(), "server/discover: "))
	}
	how := "initialize, after server/discover failed: " + strings.TrimPrefix(probeErr.Error(), "server/discover: ")
	if errors.Is(probeErr, session.ErrTimedOut) {
		if v, ok := session.PickVersion(c.Session.LateDiscoverVersions()); ok && session.IsEra2026(v) {
			return c.rediscover(ctx, key, v, peer, how)
		}
	}
	eras.Store(key, peer.ProtocolVersion)
	return c.done(peer, how)
}

// rediscover: the probe's answer came after its timeout, when initialize
// had gone out and been answered, and it shows a modern server. Before
// anything else is sent, server/discover goes again at version v, so that
// the session is not left in the wrong era; if that fails, the legacy
// session stays and its negotiation says it is a fallback, and why.
func (c *Conn) rediscover(ctx context.Context, key, v string, legacy session.PeerInfo, how string) (session.PeerInfo, error) {
	peer, err := c.discover(ctx, v, 0)
	if err == nil {
		eras.Store(key, v)
		return c.done(peer, "server/discover with "+v+", again: the probe's answer came after its timeout, when initialize had been answered")
	}
	if !c.Session.Alive() {
		return peer, err
	}
	return c.done(legacy, how+"; a fallback: the probe's late answer lists "+v+", but server/discover again failed: "+
		strings.TrimPrefix(err.Error(), "server/discover: "))
}

// afterRefusal continues with the version the server said it speaks
// after refusing ours (during step).
func (c *Conn) afterRefusal(ctx context.Context, key string, vr *session.VersionRefusedError, step string) (session.PeerInfo, error) {
	v, ok := session.PickVersion(vr.Supported)
	if !ok {
		return session.PeerInfo{}, fmt.Errorf("no protocol version in common: %w; mcpoke speaks %v", vr, session.AllVersions())
	}
	// v may be the version refused, when the server lists it: one retry
	// with it, as with any other (this function does not recurse).
	how := fmt.Sprintf("%s refused %s and named %s", step, vr.Requested, session.NameList(vr.Supported))
	if session.IsEra2026(v) {
		peer, err := c.discover(ctx, v, 0)
		if err != nil {
			return peer, err
		}
		eras.Store(key, v)
		return c.done(peer, "server/discover with "+v+": "+how)
	}
	peer, err := c.initialize(v)
	if err != nil {
		return peer, err
	}
	eras.Store(key, v)
	return c.done(peer, "initialize with "+v+": "+how)
}

// refusedListingOurs reads err as a refusal of the version asked for
// whose list of supported versions names that very version.
func refusedListingOurs(err error) (*session.VersionRefusedError, bool) {
	var vr *session.VersionRefusedError
	if errors.As(err, &vr) && slices.Contains(vr.Supported, vr.Requested) {
		return vr, true
	}
	return nil, false
}

// loginFailures is how many logins failed so far on this connection's
// authorizer (internal/auth.Provider); 0 without one.
func (c *Conn) loginFailures() int64 {
	if lf, ok := c.opts.Auth.(interface{ LoginFailures() int64 }); ok {
		return lf.LoginFailures()
	}
	return 0
}

// modernError reports whether err is an error only a modern server
// sends: a header mismatch or a missing client capability.
func modernError(err error) bool {
	var rpcErr *session.RPCError
	return errors.As(err, &rpcErr) && (rpcErr.Code == session.CodeHeaderMismatch || rpcErr.Code == session.CodeMissingClientCapability)
}

// probe is ProtocolAuto's server/discover. The handshake's own deadline
// waits for it (the probe has its own), and starts again for whatever
// follows it.
func (c *Conn) probe(ctx context.Context) (session.PeerInfo, error) {
	timeout := c.opts.ProbeTimeout
	if timeout <= 0 {
		timeout = DefaultProbeTimeout
		if c.remote == nil {
			timeout = c.initTimeout()
		}
	}
	c.probing.Store(true)
	defer func() {
		if c.restartDeadline != nil {
			c.restartDeadline()
		}
		c.probing.Store(false)
	}()
	return c.discover(ctx, session.Era2026Version, timeout)
}

// discover sends server/discover at version; timeout 0 means none but ctx.
func (c *Conn) discover(ctx context.Context, version string, timeout time.Duration) (session.PeerInfo, error) {
	c.stage.Store("server/discover")
	caps := c.opts.ModernCapabilities
	if caps == nil {
		caps = c.opts.Capabilities
	}
	return c.Session.Discover(ctx, session.DiscoverOptions{
		Era2026Options: session.Era2026Options{ProtocolVersion: version, ClientInfo: clientInfo, Capabilities: caps},
		Timeout:        timeout,
		QuietTimeout:   timeout > 0,
		HoldTimeout:    loginHold(c.opts.Auth),
	})
}

// initialize runs the legacy handshake offering version ("" the latest).
// initialize cannot be cancelled (MCP spec), so the session waits for its
// answer whatever happens; Initialize's timeout gives up on it.
func (c *Conn) initialize(version string) (session.PeerInfo, error) {
	c.stage.Store("initialize")
	peer, err := c.Session.Initialize(context.Background(), session.InitializeOptions{
		ProtocolVersion: version,
		ClientInfo:      clientInfo,
		Capabilities:    c.opts.Capabilities,
	})
	if vr, ok := session.AsVersionRefused(err, version); ok {
		return peer, vr
	}
	return peer, err
}

// done records how the version was reached.
func (c *Conn) done(peer session.PeerInfo, how string) (session.PeerInfo, error) {
	peer.Negotiation = how
	c.Session.SetNegotiation(how)
	return peer, nil
}
