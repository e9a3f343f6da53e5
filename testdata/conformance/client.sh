#!/bin/sh
# Scenario driver for the official MCP conformance suite's client
# scenarios: the suite runs this with the server URL appended and names
# the scenario in MCP_CONFORMANCE_SCENARIO. MCPOKE is the binary to test.
set -eu
url=$(eval echo "\${$#}")
mcpoke=${MCPOKE:-mcpoke}
case "${MCP_CONFORMANCE_SCENARIO:-}" in
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
