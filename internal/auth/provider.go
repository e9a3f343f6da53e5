// Package auth logs mcpoke in to remote MCP servers the way the MCP
// authorization spec says (OAuth 2.1: protected resource metadata,
// authorization server metadata, client identity, authorization code
// with PKCE, refresh) and keeps the tokens in the credentials file.
//
// A Provider is a transport.Authorizer: the HTTP transport asks it for
// each request's Authorization header and hands it the server's 401 and
// 403 answers; transport itself knows nothing of OAuth.
package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// LoginTimeout bounds the wait for the person to log in.
const LoginTimeout = 5 * time.Minute

// DefaultMaxAuthorizations bounds the authorization requests (logins and
// step-ups) of one connection: a server that keeps refusing does not
// send the person to the browser forever.
const DefaultMaxAuthorizations = 3

// Config says how a Provider logs in.
type Config struct {
	// ServerURL is the MCP endpoint.
	ServerURL string
	// ClientID and ClientSecret: a client registered beforehand at the
	// authorization server. A ClientID that is an https URL is a Client
	// ID Metadata Document. Empty: dynamic registration.
	ClientID, ClientSecret string
	// ClientName is sent when registering; empty means "mcpoke".
	ClientName string
	// HTTPClient makes discovery, registration and token requests.
	HTTPClient *http.Client
	// Store keeps tokens between runs; nil keeps them in memory only.
	Store *Store
	// Prompt shows the login to the person.
	Prompt Prompter
	// MaxAuthorizations: 0 means DefaultMaxAuthorizations.
	MaxAuthorizations int
	// Fresh ignores saved tokens: the first challenge logs in again.
	Fresh bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Provider authorizes the requests of one connection. Its methods are
// safe for concurrent use; logins and refreshes run one at a time, and a
// request waits for the one under way.
type Provider struct {
	cfg Config

	mu             sync.Mutex
	loaded         bool
	entry          *Entry // the grant in use, if any
	refreshedOn401 string // an access token that came from a refresh after a 401
	authorizations int
	loggingIn      atomic.Bool
	loginsBegun    atomic.Int64
	// nobody: a login found nobody to log in (ErrNobodyToLogIn); later
	// ones in this run fail the same way at once.
	nobody atomic.Bool
	// bearer is the Authorization of entry, for requests made while a
	// login waits for the person: they never wait with it.
	bearer atomic.Value // string

	// stateMu guards state alone, so that State never waits for a login.
	stateMu sync.Mutex
	state   State
	// failures counts the logins and refreshes that failed.
	failures atomic.Int64
}

// State is what the TUI's header and auth status say.
type State struct {
	// Phase is "none", "saved", "logging in", "logged in" or "failed".
	Phase  string
	Issuer string
	Scopes []string
	Err    string
}

// New returns a Provider for cfg.
func New(cfg Config) *Provider {
	if cfg.MaxAuthorizations <= 0 {
		cfg.MaxAuthorizations = DefaultMaxAuthorizations
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	cfg.HTTPClient = noDowngrade(cfg.HTTPClient)
	return &Provider{cfg: cfg, state: State{Phase: "none"}}
}

// State returns the provider's state.
func (p *Provider) State() State {
	p.stateMu.Lock()
	defer p.stateMu.Unlock()
	st := p.state
	st.Scopes = slices.Clone(st.Scopes)
	return st
}

// setEntry makes e the grant in use.
func (p *Provider) setEntry(e *Entry) {
	p.entry = e
	p.bearer.Store(bearer(e))
}

func (p *Provider) setState(st State) {
	p.stateMu.Lock()
	defer p.stateMu.Unlock()
	p.state = st
	if st.Phase == "failed" {
		p.failures.Add(1)
	}
}

// LoginFailures counts the logins (and refreshes) that failed so far: a
// caller that compares it before and after a request knows whether a
// login failed during it.
func (p *Provider) LoginFailures() int64 { return p.failures.Load() }

// LoggingIn reports a login waiting for the person.
func (p *Provider) LoggingIn() bool { return p.loggingIn.Load() }

// LoginsBegun counts the logins that have waited for the person: a wait
// that a login interrupted and that is over by now still knows it was.
func (p *Provider) LoginsBegun() int64 { return p.loginsBegun.Load() }

// Authorization implements transport.Authorizer: the bearer token, after
// a refresh when it has expired; "" before any login.
func (p *Provider) Authorization(ctx context.Context) string {
	if p.loggingIn.Load() {
		// Closing the connection (its DELETE) must not wait minutes.
		s, _ := p.bearer.Load().(string)
		return s
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.load()
	if p.entry == nil || p.entry.AccessToken == "" && p.entry.RefreshToken == "" {
		return ""
	}
	if p.expired(p.entry) && p.entry.RefreshToken != "" {
		if err := p.refresh(ctx); err != nil {
			// The server will answer 401 and the login starts there.
			p.dropTokens(err)
			return ""
		}
	}
	return bearer(p.entry)
}

// Challenged implements transport.Authorizer: a 401 logs in (or
// refreshes), a 403 insufficient_scope steps up with the scopes asked
// for. It returns true when the request should go again.
func (p *Provider) Challenged(ctx context.Context, sent string, resp *http.Response) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.load()
	ch := parseChallenge(resp.Header)
	stepUp := resp.StatusCode == http.StatusForbidden
	if stepUp && ch.Error != "insufficient_scope" {
		return false, nil // a plain 403: no login helps
	}
	current := bearer(p.entry)
	if current != "" && current != sent {
		// Another request logged in or stepped up meanwhile: try that.
		return true, nil
	}
	var found *server
	if !stepUp && current != "" && p.entry.RefreshToken != "" && p.entry.AccessToken != p.refreshedOn401 {
		// Refresh only at the issuer the server still names: a client and
		// its tokens never go to another authorization server.
		s, err := discover(ctx, p.cfg.HTTPClient, p.cfg.ServerURL, ch)
		if err != nil {
			p.setState(State{Phase: "failed", Err: err.Error()})
			return false, err
		}
		found = s
		if s.AS.Issuer == p.entry.Issuer {
			if err := p.refresh(ctx); err == nil {
				p.refreshedOn401 = p.entry.AccessToken
				return true, nil
			}
		}
	}
	if p.authorizations >= p.cfg.MaxAuthorizations {
		err := fmt.Errorf("the server still answers %s after %d authorization requests; giving up", resp.Status, p.authorizations)
		p.setState(State{Phase: "failed", Err: err.Error()})
		return false, err
	}
	p.authorizations++
	var granted []string
	if p.entry != nil {
		granted = p.entry.Scopes
	}
	scopes := ch.Scopes
	if stepUp {
		scopes = union(granted, ch.Scopes)
	}
	if err := p.login(ctx, ch, scopes, found); err != nil {
		p.setState(State{Phase: "failed", Err: err.Error()})
		return false, err
	}
	return true, nil
}

// load reads the saved grant once (unless Fresh).
func (p *Provider) load() {
	if p.loaded {
		return
	}
	p.loaded = true
	if p.cfg.Store == nil || p.cfg.Fresh {
		return
	}
	e, err := p.cfg.Store.Lookup("", p.cfg.ServerURL)
	if err != nil {
		return
	}
	p.setEntry(&e)
	p.setState(State{Phase: "saved", Issuer: e.Issuer, Scopes: e.Scopes})
}

func (p *Provider) expired(e *Entry) bool {
	return e.AccessToken == "" || !e.Expiry.IsZero() && p.cfg.Now().Add(10*time.Second).After(e.Expiry)
}

// dropTokens forgets the tokens, not the client: the next login reuses it.
func (p *Provider) dropTokens(why error) {
	p.entry.AccessToken, p.entry.RefreshToken = "", ""
	p.bearer.Store("")
	p.setState(State{Phase: "failed", Issuer: p.entry.Issuer, Err: why.Error()})
	p.save(*p.entry)
}

func (p *Provider) save(e Entry) {
	if p.cfg.Store == nil {
		return
	}
	e.Saved = p.cfg.Now()
	if err := p.cfg.Store.Save(e); err != nil && p.cfg.Store.Warn != nil {
		p.cfg.Store.Warn(fmt.Sprintf("the tokens could not be saved (%v); they last as long as this connection", err))
	}
}

func bearer(e *Entry) string {
	if e == nil || e.AccessToken == "" {
		return ""
	}
	return "Bearer " + e.AccessToken
}

// union is a, then what b adds.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// ErrNoLogin means the server asks for authorization and nobody can log in
// (no prompter).
var ErrNoLogin = errors.New("the server asks for a login and mcpoke cannot show one here; run mcpoke auth login --url URL first")

// connect falls back from server/discover to initialize only when no login
// failed meanwhile; it reads this method through an interface of its own.
var _ interface{ LoginFailures() int64 } = (*Provider)(nil)
