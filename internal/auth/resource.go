package auth

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// withResource returns a client whose token requests carry the resource
// parameter (RFC 8707) when they lack it: x/oauth2 offers no way to add
// it to a refresh.
func withResource(c *http.Client, resource string) *http.Client {
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	cc := *c
	cc.Transport = resourceParam{rt: rt, resource: resource}
	return &cc
}

type resourceParam struct {
	rt       http.RoundTripper
	resource string
}

func (r resourceParam) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil || !strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		return r.rt.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(body))
	if err == nil && form.Get("resource") == "" {
		form.Set("resource", r.resource)
		body = []byte(form.Encode())
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return r.rt.RoundTrip(req)
}
