// The TypeScript reference SDK's client running the cancel storm of
// `mcpoke bench --cancel-rate`, for a side-by-side comparison with mcpoke
// and the Go SDK's client (testdata/peers/gosdk/storm): calls at a
// concurrency, a share of them cancelled by aborting their AbortSignal at
// a moment drawn from a range (the SDK then sends notifications/cancelled),
// first a run without cancels, then the storm:
//
//   node testdata/peers/ts/storm.mjs [--url URL | -- CMD ARGS...] [--n 2000] [--c 64] [--rate 0.3]
//        [--from 50] [--to 500] [--tool sleep] [--args JSON]      (--from/--to in ms)
//
// It prints {"client":"ts-sdk", calls, cancelled, callsPerSec,
// uncancelledCallsPerSec, ratio, completedP50Ms, uncancelledP50Ms,
// clientCPUMsPerKCall...}, the same keys as the Go SDK's. What the server
// did after the cancels the SDK does not say: it drops whatever comes for
// an aborted call. The SDK is loaded from $MCPOKE_PEERS_DIR (default
// ~/.cache/mcpoke-peers).
import { join } from "node:path";
import { homedir } from "node:os";
import { pathToFileURL } from "node:url";

const peers = process.env.MCPOKE_PEERS_DIR || join(homedir(), ".cache", "mcpoke-peers");
const sdk = (p) => import(pathToFileURL(join(peers, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { StdioClientTransport } = await sdk("client/stdio.js");

const fail = (msg) => {
  console.error("storm: " + msg);
  process.exit(1);
};

const opts = { n: 2000, c: 64, rate: 0.3, from: 50, to: 500, tool: "sleep", args: '{"seconds":1,"steps":10}', url: "" };
const argv = process.argv.slice(2);
let command = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--") {
    command = argv.slice(i + 1);
    break;
  }
  const key = a.replace(/^--?/, "");
  if (!(key in opts) || i + 1 >= argv.length) fail(`unknown or incomplete flag ${a}`);
  const v = argv[++i];
  opts[key] = typeof opts[key] === "number" ? Number(v) : v;
  if (typeof opts[key] === "number" && !Number.isFinite(opts[key])) fail(`${a}: not a number: ${v}`);
}
let args;
try {
  args = JSON.parse(opts.args);
} catch (e) {
  fail(`--args: ${e.message}`);
}

let transport;
if (opts.url) {
  transport = new StreamableHTTPClientTransport(new URL(opts.url));
} else if (command.length > 0) {
  transport = new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: "ignore" });
} else {
  fail("usage: storm.mjs [--url URL | -- CMD ARGS...]");
}
const client = new Client({ name: "ts-sdk-storm", version: "0" });
await client.connect(transport);

const params = { name: opts.tool, arguments: args };
// No SDK timeout within the run: a call ends answered, aborted or failed.
const callOpts = { timeout: 600_000 };

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function run(rate) {
  const completed = [];
  let cancelled = 0;
  let failed = 0;
  let next = 0;
  const cpu0 = cpuMs();
  const start = performance.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= opts.n) return;
      const pick = Math.floor((i + 1) * rate) > Math.floor(i * rate);
      const ac = new AbortController();
      let timer;
      if (pick) {
        const d = opts.from + Math.random() * (opts.to - opts.from);
        timer = setTimeout(() => ac.abort("mcpoke storm: cancel"), d);
      }
      const t0 = performance.now();
      try {
        await client.callTool(params, undefined, { ...callOpts, signal: ac.signal });
        completed.push(performance.now() - t0);
      } catch (e) {
        if (ac.signal.aborted) cancelled++;
        else failed++;
      } finally {
        clearTimeout(timer);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.c }, worker));
  return { completed, cancelled, failed, wallMs: performance.now() - start, cpuMs: cpuMs() - cpu0 };
}

const p50 = (d) => {
  if (d.length === 0) return 0;
  d.sort((a, b) => a - b);
  return round(d[Math.floor((d.length + 1) / 2) - 1]);
};
const round = (x) => Math.round(x * 1e4) / 1e4;

const base = await run(0);
const storm = await run(opts.rate);
const perSec = opts.n / (storm.wallMs / 1000);
const basePerSec = opts.n / (base.wallMs / 1000);
console.log(
  JSON.stringify({
    client: "ts-sdk",
    tool: opts.tool,
    calls: opts.n,
    concurrency: opts.c,
    cancelRate: opts.rate,
    completed: storm.completed.length,
    cancelled: storm.cancelled,
    failed: storm.failed + base.failed,
    callsPerSec: round(perSec),
    uncancelledCallsPerSec: round(basePerSec),
    ratio: round(perSec / basePerSec),
    completedP50Ms: p50(storm.completed),
    uncancelledP50Ms: p50(base.completed),
    clientCPUMsPerKCall: round((storm.cpuMs * 1000) / opts.n),
    uncancelledClientCPUMsPerKCall: round((base.cpuMs * 1000) / opts.n),
  }),
);
await client.close();
process.exit(0);
