package proxy

import (
	"strings"

	"github.com/mcpoke/mcpoke/transport"
)

// RedactCommandLine is a server's command line for the records, with the
// values of flags named like credentials (--api-key X, --token=X) and
// URLs' credentials redacted: the records may be shared, the secrets not.
func RedactCommandLine(argv []string) string {
	out := make([]string, len(argv))
	hideNext := false
	for i, a := range argv {
		switch {
		case hideNext:
			out[i] = "[redacted]"
			hideNext = false
		case strings.HasPrefix(a, "-"):
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			secret := name != "" && transport.IsCredentialHeader(name)
			switch {
			case secret && hasValue:
				out[i] = a[:strings.IndexByte(a, '=')+1] + "[redacted]"
			default:
				out[i] = a
				hideNext = secret
			}
		case strings.Contains(a, "://"):
			out[i] = transport.RedactURL(a)
		default:
			out[i] = a
		}
	}
	return strings.Join(out, " ")
}
