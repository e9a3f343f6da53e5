package transport

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// redacted replaces a credential wherever mcpoke shows or saves it.
const redacted = "[redacted]"

// IsCredentialHeader reports whether a header (or query parameter) named
// name carries a secret: Authorization, Cookie, X-Api-Key and anything
// named like a token, secret, key, password or session cookie.
func IsCredentialHeader(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "api-key", "apikey":
		return true
	}
	for _, part := range []string{"token", "secret", "key", "password", "passwd", "auth", "credential"} {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// RedactHeader returns "Name: value" with the value redacted when it is a
// credential.
func RedactHeader(name, value string) string {
	if IsCredentialHeader(name) {
		return name + ": " + redacted
	}
	return name + ": " + value
}

// RedactHeaders returns a copy of h with credential values redacted.
func RedactHeaders(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		if IsCredentialHeader(k) {
			out[k] = []string{redacted}
			continue
		}
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// RedactURL returns u with a password and credential query parameters
// redacted, for messages. A string that is not a URL is returned as is.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return redactURL(u)
}

func redactURL(u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(redacted)
	}
	if c.RawQuery != "" {
		q := c.Query()
		changed := false
		for k := range q {
			if IsCredentialHeader(k) {
				q[k] = []string{redacted}
				changed = true
			}
		}
		if changed {
			c.RawQuery = q.Encode()
		}
	}
	return c.String()
}

// netError drops the URL net/http puts in its errors: it may carry a
// credential in its query. Callers name the URL themselves, redacted.
func netError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
