package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/oauth2"
)

// login runs the authorization code flow with PKCE (S256), state, the
// resource indicator (RFC 8707) and the iss check (RFC 9207), and keeps
// the grant. scopes empty means the resource's scopes_supported, or none.
// s is what discovery found already, or nil.
func (p *Provider) login(ctx context.Context, ch challenge, scopes []string, s *server) (err error) {
	if p.cfg.Prompt == nil {
		return ErrNoLogin
	}
	if p.nobody.Load() {
		// Nobody could log in a moment ago: not another address for nobody
		// (auto mode's probe and initialize each meet the 401).
		return ErrNobodyToLogIn
	}
	c := p.cfg.HTTPClient
	if s == nil {
		if s, err = discover(ctx, c, p.cfg.ServerURL, ch); err != nil {
			return err
		}
	}
	if len(scopes) == 0 {
		scopes = s.ScopesSupported
	}
	var saved *Entry
	if p.cfg.Store != nil {
		if e, err := p.cfg.Store.Lookup(s.AS.Issuer, p.cfg.ServerURL); err == nil {
			saved = &e
		}
	}
	if saved == nil && p.entry != nil && p.entry.Issuer == s.AS.Issuer {
		saved = p.entry
	}
	lb, err := listenLoopback(func() string {
		if saved != nil {
			return saved.RedirectURI
		}
		return ""
	}())
	if err != nil {
		return err
	}
	defer lb.Close()
	e, err := identify(ctx, c, &p.cfg, s, lb.URI(), saved)
	if err != nil {
		return err
	}
	e.Server = p.cfg.ServerURL

	verifier := oauth2.GenerateVerifier()
	state := rand.Text()
	oc := oauthConfig(e, s.AS.AuthorizationEndpoint, scopes)
	authURL := oc.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", s.Resource))

	p.setState(State{Phase: "logging in", Issuer: s.AS.Issuer, Scopes: scopes})
	p.loggingIn.Store(true)
	p.loginsBegun.Add(1)
	defer p.loggingIn.Store(false)
	ctx, cancel := context.WithTimeoutCause(ctx, LoginTimeout, fmt.Errorf("nobody logged in within %s", LoginTimeout))
	defer cancel()
	pasted := p.cfg.Prompt.ShowLogin(ctx, hostOf(s.AS.AuthorizationEndpoint), authURL)
	defer func() { p.cfg.Prompt.LoginDone(err) }()
	if u, ok := p.cfg.Prompt.(interface{ Unreachable() error }); ok {
		if err := u.Unreachable(); err != nil {
			p.nobody.Store(true)
			return err // at once: nobody will come
		}
	}
	r, err := lb.wait(ctx, pasted)
	if err != nil {
		return err
	}
	if err := checkRedirect(r, state, s.AS.Issuer, s.AS.AuthorizationResponseIssParameterSupported); err != nil {
		return err
	}
	tok, err := oc.Exchange(context.WithValue(ctx, oauth2.HTTPClient, c), r.Code,
		oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", s.Resource))
	if err != nil {
		return fmt.Errorf("the token endpoint refused the code: %w", tokenError(err))
	}
	e.Scopes = scopes
	if granted, ok := tok.Extra("scope").(string); ok && granted != "" {
		e.Scopes = strings.Fields(granted)
	}
	setToken(&e, tok)
	p.setEntry(&e)
	p.refreshedOn401 = ""
	p.setState(State{Phase: "logged in", Issuer: e.Issuer, Scopes: e.Scopes})
	p.save(e)
	return nil
}

// checkRedirect refuses a redirect whose state is not ours (a bare
// pasted code has none) or whose iss is not the authorization server we
// sent the person to (a mix-up attack, RFC 9207).
func checkRedirect(r redirect, state, issuer string, issAdvertised bool) error {
	bareCode := r.Pasted && r.State == ""
	if !bareCode && r.State != state {
		return errors.New("the redirect's state is not the one mcpoke sent: it does not answer this login; start again")
	}
	if r.Iss != "" && r.Iss != issuer {
		return fmt.Errorf("the redirect says it comes from issuer %q, not %q (RFC 9207): refusing the code", r.Iss, issuer)
	}
	if r.Iss == "" && issAdvertised && !bareCode {
		return fmt.Errorf("authorization server %s promises an iss parameter and the redirect has none (RFC 9207): refusing the code", issuer)
	}
	return nil
}

// refresh trades the refresh token for new tokens; a new refresh token
// replaces the old one (rotation).
func (p *Provider) refresh(ctx context.Context) error {
	e := *p.entry
	if e.RefreshToken == "" {
		return errors.New("no refresh token")
	}
	if err := checkMetadataURL(e.TokenEndpoint); err != nil {
		return fmt.Errorf("the saved token endpoint %w: mcpoke will not send the refresh token there in clear; log in again", err)
	}
	oc := oauthConfig(e, "", nil)
	hc := withResource(p.cfg.HTTPClient, e.Resource)
	tok, err := oc.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, hc), &oauth2.Token{RefreshToken: e.RefreshToken}).Token()
	if err != nil {
		return fmt.Errorf("refreshing the token failed: %w", tokenError(err))
	}
	setToken(&e, tok)
	p.setEntry(&e)
	p.setState(State{Phase: "logged in", Issuer: e.Issuer, Scopes: e.Scopes})
	p.save(e)
	return nil
}

func setToken(e *Entry, tok *oauth2.Token) {
	e.AccessToken, e.TokenType, e.Expiry = tok.AccessToken, tok.TokenType, tok.Expiry
	if tok.RefreshToken != "" {
		e.RefreshToken = tok.RefreshToken
	}
}

// tokenError keeps the server's error code and description and drops
// the raw body, which is not ours to print.
func tokenError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		msg := re.ErrorCode
		if msg == "" && re.Response != nil {
			msg = "HTTP " + re.Response.Status
		}
		if re.ErrorDescription != "" {
			msg += ": " + re.ErrorDescription
		}
		return errors.New(msg)
	}
	return err
}
