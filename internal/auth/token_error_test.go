package auth

import (
	"net/http"
	"testing"

	"golang.org/x/oauth2"
)

// A token endpoint's error says its code and description, or its HTTP
// status when it has no code, and never the raw body.
func TestTokenErrorSaysCodeOrStatus(t *testing.T) {
	for _, c := range []struct {
		err  *oauth2.RetrieveError
		want string
	}{
		{&oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "expired", Body: []byte("secret")}, "invalid_grant: expired"},
		{&oauth2.RetrieveError{ErrorCode: "invalid_grant", Response: &http.Response{Status: "400 Bad Request"}}, "invalid_grant"},
		{&oauth2.RetrieveError{Response: &http.Response{Status: "502 Bad Gateway"}, Body: []byte("secret")}, "HTTP 502 Bad Gateway"},
	} {
		if got := tokenError(c.err).Error(); got != c.want {
			t.Errorf("tokenError(%+v) = %q, want %q", c.err, got, c.want)
		}
	}
}
