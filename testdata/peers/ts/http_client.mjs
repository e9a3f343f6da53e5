// An interop peer for mcpoke's tests: the TypeScript reference SDK's client
// driving a server over Streamable HTTP (or legacy HTTP+SSE with --sse):
// tools/list, echo, sleep with progress, and a sleep it cancels. It prints
// what it saw and exits 1 on the first surprise.
//
//   node testdata/peers/ts/http_client.mjs [--sse] URL
//
// The SDK is loaded from $MCPOKE_PEERS_DIR (default ~/.cache/mcpoke-peers),
// where .ci/run installs it.
import { join } from "node:path";
import { homedir } from "node:os";
import { pathToFileURL } from "node:url";

const peers = process.env.MCPOKE_PEERS_DIR || join(homedir(), ".cache", "mcpoke-peers");
const sdk = (p) => import(pathToFileURL(join(peers, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { SSEClientTransport } = await sdk("client/sse.js");
const { CallToolResultSchema } = await sdk("types.js");

const argv = process.argv.slice(2);
const sse = argv[0] === "--sse";
const url = argv[sse ? 1 : 0];
if (!url) {
  console.error("usage: http_client.mjs [--sse] URL");
  process.exit(2);
}
const fail = (msg) => {
  console.error("ts client: " + msg);
  process.exit(1);
};

const client = new Client({ name: "ts-http-client", version: "1.32.2" });
const transport = sse ? new SSEClientTransport(new URL(url)) : new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
console.log(`connected: ${client.getServerVersion().name}`);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
console.log(`tools: [${names.join(" ")}]`);
if (!names.includes("sleep") || !names.includes("echo")) fail("tools/list lacks sleep or echo");

const echo = await client.callTool({ name: "echo", arguments: { text: "hello over HTTP" } });
if (echo.content[0].text !== "hello over HTTP") fail(`echo answered ${JSON.stringify(echo)}`);
console.log("echo: hello over HTTP");

let progress = 0;
const slept = await client.callTool({ name: "sleep", arguments: { seconds: 0.2, steps: 4 } }, CallToolResultSchema, {
  onprogress: () => progress++,
});
console.log(`sleep: ${slept.content[0].text}, ${progress} progress notifications`);
// The SDK runs notification handlers a microtask after reading them but
// settles the call at once, so the last progress (sent just before the
// answer) may find its handler gone: 3 of 4 is the SDK, not the server.
if (progress < 3) fail(`sleep sent ${progress} progress notifications, want 4`);

// The SDK cancels with notifications/cancelled when the signal aborts.
const abort = new AbortController();
let first;
const firstProgress = new Promise((resolve) => (first = resolve));
const long = client.callTool({ name: "sleep", arguments: { seconds: 30, steps: 300 } }, CallToolResultSchema, {
  signal: abort.signal,
  onprogress: () => first(),
});
await firstProgress;
abort.abort("ts client: enough");
try {
  await long;
  fail("the cancelled sleep answered");
} catch (e) {
  console.log("cancelled: sleep");
}
// Give the cancel notification time to be POSTed before closing.
await new Promise((r) => setTimeout(r, 100));
if (!sse) await transport.terminateSession();
await client.close();
