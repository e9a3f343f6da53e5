#!/bin/sh
# A stand-in for the person at the browser in the conformance suite's auth
# scenarios: the suite's authorization server approves at once, so
# following its redirect to mcpoke's loopback listener completes the login.
exec curl -fsSL -o /dev/null "$1"
