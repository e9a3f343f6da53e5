package transport

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

// DefaultConnectTimeout bounds a TCP and TLS connect, and the wait for a
// legacy SSE server's endpoint event.
const DefaultConnectTimeout = 10 * time.Second

// HTTPClientOptions say how mcpoke reaches HTTP servers.
type HTTPClientOptions struct {
	// CACertFile is a PEM file of certificates trusted besides the
	// system roots.
	CACertFile string
	// Insecure skips certificate verification. The caller warns loudly.
	Insecure bool
	// ConnectTimeout bounds dialing and the TLS handshake; 0 means
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
}

// NewHTTPClient returns a client with its own connection pool (Close of
// a transport releases it), proxies from the environment (HTTPS_PROXY,
// NO_PROXY, ...) and the TLS trust asked for. It follows no redirect for
// POST (net/http's rule) and sets no overall timeout: streams are long.
func NewHTTPClient(o HTTPClientOptions) (*http.Client, error) {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CACertFile != "" {
		pem, err := os.ReadFile(o.CACertFile)
		if err != nil {
			return nil, fmt.Errorf("cannot read the CA certificate: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s holds no PEM certificate; give a PEM file (-----BEGIN CERTIFICATE-----)", o.CACertFile)
		}
		tlsConf.RootCAs = pool
	}
	tlsConf.InsecureSkipVerify = o.Insecure
	dialer := &net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dialer.DialContext,
		TLSClientConfig:     tlsConf,
		TLSHandshakeTimeout: o.ConnectTimeout,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
	}
	return &http.Client{Transport: tr}, nil
}
