#!/bin/sh
# Scenario driver for the official MCP conformance suite's client
# scenarios: the suite runs this with the server URL appended, names the
# scenario in MCP_CONFORMANCE_SCENARIO and the wire's protocol version in
# MCP_CONFORMANCE_PROTOCOL_VERSION (2025-11-25 or 2026-07-28 with
# --requirements). MCPOKE is the binary to test; each scenario is driven
# as a person would, with mcpoke's commands.
set -eu
url=$(eval echo "\${$#}")
bin=${MCPOKE:-mcpoke}
# Every command speaks the scenario's protocol version when it names one.
mcpoke() {
	cmd=$1
	shift
	if [ -n "${MCP_CONFORMANCE_PROTOCOL_VERSION:-}" ]; then
		"$bin" "$cmd" --protocol "$MCP_CONFORMANCE_PROTOCOL_VERSION" "$@"
	else
		"$bin" "$cmd" "$@"
	fi
}
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
	mcpoke call test-tool --url "$url" --client-id https://conformance-test.local/client-metadata.json ;;
auth/pre-registration)
	mcpoke call test-tool --url "$url" --client-id "$(context client_id)" --client-secret "$(context client_secret)" ;;
auth/*)
	mcpoke call test-tool --url "$url" ;;
initialize)
	# The scenario's server declares no capabilities: ping needs none.
	mcpoke ping --url "$url" ;;
tools_call)
	mcpoke call add_numbers --args '{"a":5,"b":3}' --url "$url" ;;
elicitation-sep1034-client-defaults)
	# The server asks for a form and checks that every default came back.
	mcpoke call test_client_elicitation_defaults --elicit accept-defaults --url "$url" ;;
sse-retry)
	mcpoke call test_reconnection --unlisted --timeout 10s --url "$url" ;;
request-metadata)
	# The server refuses the first request with -32022 and the versions
	# it speaks; mcpoke retries with one of them. Its server/discover
	# declares no tools: --force lists them all the same.
	mcpoke tools --force --url "$url" ;;
sep-2322-client-request-state)
	# input_required twice (with and without requestState), a call in
	# between, and a result without resultType.
	mcpoke call test_mrtr_echo_state --elicit 'accept:{"confirmed":true}' --url "$url"
	mcpoke call test_mrtr_unrelated --url "$url"
	mcpoke call test_mrtr_no_state --elicit 'accept:{"confirmed":true}' --url "$url"
	mcpoke call test_mrtr_no_result_type --url "$url" ;;
http-standard-headers)
	# Every named method, for its Mcp-Method and Mcp-Name headers.
	mcpoke call test_headers --url "$url"
	mcpoke call my-hyphenated-tool --url "$url"
	mcpoke resources --url "$url"
	mcpoke read 'file:///path/to/file%20name.txt' --url "$url"
	mcpoke read 'https://example.com/resource?id=123' --url "$url"
	mcpoke prompts --url "$url"
	mcpoke prompt test_prompt --url "$url" ;;
http-custom-headers)
	# The calls the scenario names, with their arguments (one has an
	# explicit null, whose Mcp-Param header is left out).
	printf '%s' "$MCP_CONFORMANCE_CONTEXT" | jq -c '.toolCalls[] | [.name, (.arguments | tojson)]' |
		while read -r call; do
			name=$(printf '%s' "$call" | jq -r '.[0]')
			args=$(printf '%s' "$call" | jq -r '.[1]')
			mcpoke call "$name" --args "$args" --url "$url"
		done ;;
http-invalid-tool-headers)
	# mcpoke calls the tool whose x-mcp-header is valid and refuses the
	# others (exit 2: nothing sent).
	mcpoke call valid_tool --args '{"region":"us-west1"}' --url "$url"
	for tool in $(mcpoke tools --url "$url" --json | jq -r '.tools[].name' | grep -v '^valid_tool$'); do
		if mcpoke call "$tool" --args '{}' --url "$url"; then
			echo "client.sh: mcpoke called $tool, whose x-mcp-header is invalid" >&2
			exit 1
		fi
	done ;;
json-schema-ref-no-deref)
	# Listing and calling must not fetch the schema's network $ref.
	mcpoke tools --url "$url"
	mcpoke call lookup_user --args '{"id":"u-1"}' --url "$url" ;;
*)
	echo "client.sh: no driver for scenario '${MCP_CONFORMANCE_SCENARIO:-}'" >&2
	exit 2 ;;
esac
