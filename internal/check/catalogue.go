package check

// The spec sentences the checks test, quoted from the specification
// (../shared/spec/<version>/). Versions lists every version whose text
// has the sentence.
var (
	allVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}
	// legacyVersions have requests from the server; 2026-07-28 asks with
	// input_required results instead (multi round-trip requests).
	legacyVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}
	httpVersions   = []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

	ruleNoResponse = Rule{Should, "Receivers of cancellation notifications SHOULD: … Not send a response for the cancelled request",
		"cancellation.mdx, Behavior Requirements", legacyVersions}
	ruleStopWork = Rule{Should, "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request",
		"cancellation.mdx, Behavior Requirements", legacyVersions}
	// 2026-07-28 words the cancellation page's SHOULD for servers.
	ruleStopWorkModern = Rule{Should, "Servers receiving cancellation notifications SHOULD: Stop processing the cancelled request",
		"cancellation.mdx, Behavior Requirements", []string{"2026-07-28"}}
	ruleProgressStops = Rule{Must, "Progress notifications MUST stop after completion",
		"progress.mdx, Implementation Notes", allVersions}
	ruleGraceful = Rule{Must, "Both parties MUST handle these race conditions gracefully",
		"cancellation.mdx, Timing Considerations", allVersions}
	ruleIgnoreInvalid = Rule{Should, "Invalid cancellation notifications SHOULD be ignored: Unknown request IDs, Already completed requests, Malformed notifications",
		"cancellation.mdx, Error Handling", allVersions}
	ruleHTTPCancel = Rule{Should, "Disconnection SHOULD NOT be interpreted as the client cancelling its request (2025); the server MUST treat a client disconnect as cancellation of that request (2026-07-28)",
		"transports.mdx; 2026-07-28 cancellation.mdx, Transport-Specific Cancellation", httpVersions}
	ruleDropNotCancel = Rule{Should, "Disconnection SHOULD NOT be interpreted as the client cancelling its request. To cancel, the client SHOULD explicitly send an MCP CancelledNotification",
		"transports.mdx, Sending Messages to the Server", []string{"2025-03-26", "2025-06-18", "2025-11-25"}}
	ruleCloseCancels = Rule{Must, "The server MUST treat a client disconnect as cancellation of that request",
		"cancellation.mdx, Transport-Specific Cancellation; streamable-http.mdx, Cancellation", []string{"2026-07-28"}}
	ruleFreeResources = Rule{Should, "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request; Free associated resources",
		"cancellation.mdx, Behavior Requirements", legacyVersions}
	ruleCancelOwnOnly = Rule{Must, "Cancellation notifications MUST only reference requests that: Were previously issued in the same direction; Are believed to still be in-progress",
		"cancellation.mdx, Behavior Requirements", legacyVersions}
	// In 2026-07-28 each transport page makes "no response" and "no more
	// progress" after a cancel a MUST.
	ruleNoFurtherStdio = Rule{Must, "Servers SHOULD stop work on a cancelled request as soon as practical and MUST NOT send any further messages for it",
		"stdio.mdx, Cancellation", []string{"2026-07-28"}}
	ruleNoFurtherHTTP = Rule{Must, "The server SHOULD stop work on the cancelled request as soon as practical and MUST NOT send any further messages for it",
		"streamable-http.mdx, Cancellation", []string{"2026-07-28"}}
	ruleProgressTokens = Rule{Must, "Progress notifications MUST only reference tokens that: Were provided in an active request; Are associated with an in-progress operation",
		"progress.mdx, Behavior Requirements", allVersions}
	ruleProgressIncreases = Rule{Must, "The progress value MUST increase with each notification, even if the total is unknown",
		"progress.mdx, Progress Flow", allVersions}
	ruleSenderIgnores = Rule{Should, "The sender of the cancellation notification SHOULD ignore any response to the request that arrives afterward",
		"cancellation.mdx, Behavior Requirements", legacyVersions}
)

// definition is a check before it runs.
type definition struct {
	id    int
	title string
	rule  Rule
	// scenarios are the conformance suite's scenarios that test the same
	// behaviour (its proposed cancellation and progress-notifications).
	scenarios []string
}

// The conformance suite's proposed scenarios, by name.
const (
	scenarioCancellation = "cancellation"
	scenarioProgress     = "progress-notifications"
)

// catalogue lists the checks in the order they run and are reported.
var catalogue = []definition{
	{1, "A cancelled call gets no response", ruleNoResponse, []string{scenarioCancellation}},
	{2, "Progress stops after the cancel, and names only tokens mcpoke sent", ruleStopWork, []string{scenarioProgress, scenarioCancellation}},
	{3, "The server is healthy after a cancel", ruleGraceful, []string{scenarioCancellation}},
	{4, "Invalid cancels are ignored (unknown id, finished request, malformed)", ruleIgnoreInvalid, []string{scenarioCancellation}},
	{5, "A cancel with the right id value but the wrong JSON type cancels nothing", ruleIgnoreInvalid, nil},
	{6, "Under load, calls cancelled at random moments", ruleGraceful, []string{scenarioCancellation, scenarioProgress}},
	{7, "tasks/cancel ends a running task cancelled and refuses a finished one", ruleTaskCancelled, nil},
	{8, "Cancellation over HTTP (POSTed cancel, dropped or closed stream)", ruleHTTPCancel, nil},
	{9, "The server cancels its own request with the call that asked it, and ignores the answer that crosses its cancel", ruleSenderIgnores, nil},
	{10, "The server stops working after a cancel (CPU of its processes, or its spans)", ruleStopWork, []string{scenarioCancellation}},
}

// IDs are the ids of every check, for --only and --skip.
func IDs() []int {
	ids := make([]int, len(catalogue))
	for i, d := range catalogue {
		ids[i] = d.id
	}
	return ids
}

func (d definition) result() Result {
	return Result{ID: d.id, Title: d.title, Rule: d.rule, Conformance: d.scenarios, Evidence: Evidence{Facts: []string{}}}
}
