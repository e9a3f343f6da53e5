package auth

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// How mcpoke is known to an authorization server (Entry.Registration).
const (
	regPre      = "pre-registered"
	regMetadata = "metadata-document"
	regDynamic  = "dynamic"
)

// identify picks the client mcpoke is at s's authorization server, in the
// spec's order: the client id the user gave (a Client ID Metadata
// Document when it is an https URL and the server takes those), else a
// client registered earlier at this very issuer, else Dynamic Client
// Registration (RFC 7591).
func identify(ctx context.Context, c *http.Client, cfg *Config, s *server, redirectURI string, saved *Entry) (Entry, error) {
	as := s.AS
	e := Entry{Issuer: as.Issuer, Resource: s.Resource, TokenEndpoint: as.TokenEndpoint, RedirectURI: redirectURI}
	if cfg.ClientID != "" {
		if isMetadataDocumentURL(cfg.ClientID) && (as.ClientIDMetadataDocumentSupported || as.RegistrationEndpoint == "") {
			e.ClientID, e.Registration, e.AuthMethod = cfg.ClientID, regMetadata, "none"
			return e, nil
		}
		if !isMetadataDocumentURL(cfg.ClientID) {
			e.ClientID, e.ClientSecret, e.Registration = cfg.ClientID, cfg.ClientSecret, regPre
			e.AuthMethod = pickAuthMethod(as.TokenEndpointAuthMethodsSupported, cfg.ClientSecret != "")
			return e, nil
		}
	}
	if saved != nil && saved.Issuer == as.Issuer && saved.Registration == regDynamic && saved.RedirectURI == redirectURI {
		e.ClientID, e.ClientSecret, e.Registration, e.AuthMethod = saved.ClientID, saved.ClientSecret, regDynamic, saved.AuthMethod
		return e, nil
	}
	if as.RegistrationEndpoint == "" {
		return e, fmt.Errorf("authorization server %s does not register clients (no registration_endpoint): give a client id registered there with --client-id (and --client-secret)", as.Issuer)
	}
	want := "none"
	if supported := as.TokenEndpointAuthMethodsSupported; len(supported) > 0 && !slices.Contains(supported, "none") {
		want = pickAuthMethod(supported, true)
	}
	name := cfg.ClientName
	if name == "" {
		name = "mcpoke"
	}
	reg, err := oauthex.RegisterClient(ctx, as.RegistrationEndpoint, &oauthex.ClientRegistrationMetadata{
		RedirectURIs:            []string{redirectURI},
		TokenEndpointAuthMethod: want,
		GrantTypes:              []string{"authorization_code", "refresh_token"},
		ResponseTypes:           []string{"code"},
		ClientName:              name,
		ClientURI:               "https://github.com/mcpoke/mcpoke",
		ApplicationType:         "native",
	}, c)
	if err != nil {
		return e, fmt.Errorf("dynamic client registration at %s: %w", as.Issuer, err)
	}
	e.ClientID, e.ClientSecret, e.Registration = reg.ClientID, reg.ClientSecret, regDynamic
	e.AuthMethod = reg.TokenEndpointAuthMethod
	if e.AuthMethod == "" {
		// RFC 7591 §2: the default is client_secret_basic; without a
		// secret there is nothing to send.
		e.AuthMethod = "client_secret_basic"
		if e.ClientSecret == "" {
			e.AuthMethod = "none"
		}
	}
	return e, nil
}

// pickAuthMethod chooses how to authenticate at the token endpoint from
// what the server supports (RFC 8414's default is client_secret_basic).
func pickAuthMethod(supported []string, haveSecret bool) string {
	if !haveSecret {
		return "none"
	}
	if len(supported) == 0 || slices.Contains(supported, "client_secret_basic") {
		return "client_secret_basic"
	}
	if slices.Contains(supported, "client_secret_post") {
		return "client_secret_post"
	}
	return "client_secret_basic"
}

// authStyle maps a token endpoint auth method to x/oauth2's style: none
// sends client_id in the body and no secret.
func authStyle(method string) oauth2.AuthStyle {
	if method == "client_secret_basic" {
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleInParams
}

// isMetadataDocumentURL: an https URL with a path is a Client ID Metadata
// Document, not a registered id.
func isMetadataDocumentURL(id string) bool {
	u, err := url.Parse(id)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.Path != "" && u.Path != "/"
}

// oauthConfig is x/oauth2's view of an entry.
func oauthConfig(e Entry, authURL string, scopes []string) *oauth2.Config {
	secret := e.ClientSecret
	if e.AuthMethod == "none" {
		secret = ""
	}
	return &oauth2.Config{
		ClientID:     e.ClientID,
		ClientSecret: secret,
		Endpoint:     oauth2.Endpoint{AuthURL: authURL, TokenURL: e.TokenEndpoint, AuthStyle: authStyle(e.AuthMethod)},
		RedirectURL:  e.RedirectURI,
		Scopes:       scopes,
	}
}
