// Package version says which mcpoke this is: the client's clientInfo, the
// demo server's serverInfo and --version all read it from here.
package version

import "runtime/debug"

// Version is set at link time for releases:
//
//	go build -ldflags "-X github.com/mcpoke/mcpoke/internal/version.Version=v1.2.3"
var Version = ""

// String returns Version, else the module version the binary was built
// from (go install ...@v1.2.3), else "dev".
func String() string {
	if Version != "" {
		return Version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}
