package auth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Dynamic registration asks for "none" at a server that lists no token
// endpoint auth methods, and keeps the method the server grants, or
// defaults it as RFC 7591 says when the server grants none.
func TestIdentifyRegistersWithTheRightAuthMethod(t *testing.T) {
	for _, c := range []struct {
		name      string
		supported []string
		granted   map[string]any // the registration response's extra fields
		asked     string
		method    string
	}{
		{"no methods listed", nil, map[string]any{"token_endpoint_auth_method": "none"}, "none", "none"},
		{"post granted", []string{"client_secret_post"}, map[string]any{"client_secret": "s", "token_endpoint_auth_method": "client_secret_post"}, "client_secret_post", "client_secret_post"},
		{"none granted by default", nil, map[string]any{}, "none", "none"},
		{"basic granted by default", nil, map[string]any{"client_secret": "s"}, "none", "client_secret_basic"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var asked string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var body struct {
					Method string `json:"token_endpoint_auth_method"`
				}
				json.NewDecoder(r.Body).Decode(&body)
				asked = body.Method
				resp := map[string]any{"client_id": "c1", "redirect_uris": []string{"http://127.0.0.1/cb"}}
				for k, v := range c.granted {
					resp[k] = v
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusCreated)
				json.NewEncoder(w).Encode(resp)
			}))
			defer srv.Close()
			s := &server{Resource: "r", AS: &oauthex.AuthServerMeta{Issuer: srv.URL, RegistrationEndpoint: srv.URL + "/register",
				TokenEndpoint: srv.URL + "/token", TokenEndpointAuthMethodsSupported: c.supported}}
			e, err := identify(context.Background(), srv.Client(), &Config{}, s, "http://127.0.0.1/cb", nil)
			if err != nil {
				t.Fatal(err)
			}
			if asked != c.asked || e.AuthMethod != c.method || e.Registration != regDynamic {
				t.Errorf("asked for %q, got %+v; want to ask for %q and get %q", asked, e, c.asked, c.method)
			}
		})
	}
}
