#!/bin/sh
# Scenario driver for the official MCP conformance suite's client
# scenarios: the suite runs this with the server URL appended and names
# the scenario in MCP_CONFORMANCE_SCENARIO. MCPOKE is the binary to test.
set -eu
url=$(eval echo "\${$#}")
mcpoke=${MCPOKE:-mcpoke}
# Auth scenarios log in unattended: the "browser" follows the redirect,
# and tokens go to a credentials file of this run only.
export BROWSER="$(dirname "$0")/browser.sh"
XDG_CONFIG_HOME=$(mktemp -d)
export XDG_CONFIG_HOME
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
# context KEY: a string field of the scenario's JSON context.
context() {
	printf '%s' "${MCP_CONFORMANCE_CONTEXT:-}" | sed -n 's/.*"'"$1"'":"\([^"]*\)".*/\1/p'
}
case "${MCP_CONFORMANCE_SCENARIO:-}" in
auth/basic-cimd)
	"$mcpoke" call test-tool --url "$url" --client-id https://conformance-test.local/client-metadata.json ;;
auth/pre-registration)
	"$mcpoke" call test-tool --url "$url" --client-id "$(context client_id)" --client-secret "$(context client_secret)" ;;
auth/*)
	"$mcpoke" call test-tool --url "$url" ;;
initialize)
	# The scenario's server declares no capabilities: ping needs none.
	exec "$mcpoke" ping --url "$url" ;;
tools_call)
	exec "$mcpoke" call add_numbers --args '{"a":5,"b":3}' --url "$url" ;;
elicitation-sep1034-client-defaults)
	# The server asks for a form and checks that every default came back.
	exec "$mcpoke" call test_client_elicitation_defaults --elicit accept-defaults --url "$url" ;;
sse-retry)
	exec "$mcpoke" call test_reconnection --unlisted --timeout 10s --url "$url" ;;
*)
	echo "client.sh: no driver for scenario '${MCP_CONFORMANCE_SCENARIO:-}'" >&2
	exit 2 ;;
esac
