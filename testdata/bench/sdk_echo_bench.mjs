// The TypeScript reference SDK's client making the same calls as
// `mcpoke bench --json`, for a side-by-side comparison:
//
//   node testdata/bench/sdk_echo_bench.mjs [-n 2000] [--args '{"message":"hi"}'] [--tool echo] -- CMD ARGS...
//   node testdata/bench/sdk_echo_bench.mjs [-n 2000] [--args ...] [--tool echo] --url URL
//
// With --url it speaks Streamable HTTP (StreamableHTTPClientTransport), as
// `mcpoke bench --url URL --transport http` does.
//
// It prints {"client":"@modelcontextprotocol/sdk", p50Ms, p90Ms, p99Ms, maxMs,
// callsPerSec, ...}. The SDK is loaded from $MCPOKE_PEERS_DIR (default
// ~/.cache/mcpoke-peers), where .ci/run installs it.
import { join } from "node:path";
import { homedir } from "node:os";
import { pathToFileURL } from "node:url";
import { performance } from "node:perf_hooks";

const peers = process.env.MCPOKE_PEERS_DIR || join(homedir(), ".cache", "mcpoke-peers");
const sdk = (p) => import(pathToFileURL(join(peers, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
const flags = dash < 0 ? argv : argv.slice(0, dash);
const flag = (name, def) => {
  const i = flags.indexOf(name);
  return i >= 0 ? flags[i + 1] : def;
};
const n = Number(flag("-n", "2000"));
const tool = flag("--tool", "echo");
const args = JSON.parse(flag("--args", '{"message":"hi"}'));
const url = flag("--url", "");
if (!url === (dash < 0 || dash === argv.length - 1)) {
  console.error("usage: sdk_echo_bench.mjs [-n N] [--tool NAME] [--args JSON] (-- CMD ARGS... | --url URL)");
  process.exit(2);
}
const [command, ...commandArgs] = argv.slice(dash + 1);

const client = new Client({ name: "sdk-bench", version: "0" });
await client.connect(url
  ? new StreamableHTTPClientTransport(new URL(url))
  : new StdioClientTransport({ command, args: commandArgs, stderr: "ignore" }));

const call = () => client.callTool({ name: tool, arguments: args });
// Warm up as mcpoke bench does: min(50, n/10) calls, plus one.
for (let i = 0; i < Math.min(50, Math.floor(n / 10)) + 1; i++) await call();

const rounds = [];
const start = performance.now();
for (let i = 0; i < n; i++) {
  const t0 = performance.now();
  await call();
  rounds.push(performance.now() - t0);
}
const wall = performance.now() - start;
await client.close();

rounds.sort((a, b) => a - b);
const pct = (p) => rounds[Math.max(Math.ceil((p * rounds.length) / 100), 1) - 1];
const round = (x) => Math.round(x * 1e4) / 1e4;
console.log(JSON.stringify({
  client: "@modelcontextprotocol/sdk",
  transport: url ? "http" : "stdio",
  tool,
  calls: n,
  concurrency: 1,
  p50Ms: round(pct(50)),
  p90Ms: round(pct(90)),
  p99Ms: round(pct(99)),
  maxMs: round(rounds[rounds.length - 1]),
  minMs: round(rounds[0]),
  meanMs: round(rounds.reduce((a, b) => a + b, 0) / rounds.length),
  callsPerSec: n / (wall / 1000),
}));
