// An interop peer for mcpoke's tests: a server on the TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0), which speaks protocol 2026-07-28 and,
// for 2025-era clients, the old handshake. Its slow tool honours its abort
// signal and logs on stderr how the cancel arrived, so a test (or a person)
// sees what the server saw.
//
//   node testdata/peers/ts/v2_server.mjs              # stdio
//   node testdata/peers/ts/v2_server.mjs --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp
//
// Its resource ts2://ticker changes every TS2_TICK_MS (default 500) and
// notifies its subscribers: a subscriptions/listen that names it (the SDK
// serves listen itself), or resources/subscribe in the 2025 era. It logs
// each listen opened and how it was closed.
//
// The SDK is loaded from $MCPOKE_PEERS_DIR (default ~/.cache/mcpoke-peers),
// where .ci/run installs it.
import { createServer } from "node:http";
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const peers = process.env.MCPOKE_PEERS_DIR || join(homedir(), ".cache", "mcpoke-peers");
const load = (p) => import(pathToFileURL(join(peers, "node_modules", p)).href);
const { McpServer, createMcpHandler, inputRequired, acceptedContent } = await load("@modelcontextprotocol/server/dist/index.mjs");
const { serveStdio, StdioServerTransport } = await load("@modelcontextprotocol/server/dist/stdio.mjs");
const { z } = await load("zod/index.js");

const log = (msg) => process.stderr.write(`ts-v2: ${msg}\n`);
const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });

// how says how a cancel reached the tool: a notifications/cancelled names
// its reason; a closed HTTP stream aborts with the transport's own.
const how = (reason) => {
  const text = reason instanceof Error ? reason.message : String(reason);
  return /closed|disconnect|abort/i.test(text) && !/notifications\/cancelled/.test(text) ? `stream closed (${text})` : `notifications/cancelled (${text})`;
};

const TICKER = "ts2://ticker";
const tickMs = Number(process.env.TS2_TICK_MS || 500);
let ticks = 0;
// subscribed: a 2025-era stdio client subscribed to the ticker.
let subscribed = false;

// listens are the open subscriptions/listen requests, by id, for the log.
const listens = new Set();
const listenOpened = (msg) => {
  listens.add(String(msg.id));
  log(`listen ${msg.id} opened: ${JSON.stringify(msg.params?.notifications)}`);
};
const listenClosed = (id, how) => {
  if (listens.delete(String(id))) log(`listen ${id} closed: ${how}`);
};

// working holds the ids of the slow calls in progress, across every
// request (over HTTP each 2026-07-28 request has its own server): asked in
// _meta "mcpoke/working", a slow call's result lists the others that were
// still running when it started, so that mcpoke check can see whether a
// call whose stream closed stopped.
const working = new Set();

function newServer() {
  const server = new McpServer({ name: "ts-v2-peer", version: "2.4.0" }, { capabilities: { tools: {}, resources: { subscribe: true }, extensions: { [TASKS]: {} } } });
  server.registerResource("ticker", TICKER, { description: "A counter that changes every tick.", mimeType: "text/plain" }, async () => ({
    contents: [{ uri: TICKER, mimeType: "text/plain", text: `tick ${ticks}` }],
  }));
  // The 2025 era's subscriptions (2026-07-28 has none: listen names them).
  server.server.setRequestHandler("resources/subscribe", async (req) => {
    log(`resources/subscribe ${req.params.uri}`);
    if (req.params.uri === TICKER) subscribed = true;
    return {};
  });
  server.server.setRequestHandler("resources/unsubscribe", async (req) => {
    log(`resources/unsubscribe ${req.params.uri}`);
    if (req.params.uri === TICKER) subscribed = false;
    return {};
  });
  server.registerTool(
    "slow",
    {
      description: "Works for a while with progress; stops when cancelled and logs how the cancel arrived.",
      inputSchema: z.object({ seconds: z.number().default(10), steps: z.number().int().default(10) }),
    },
    async ({ seconds, steps }, ctx) => {
      const id = ctx.mcpReq.id;
      const token = ctx.mcpReq._meta?.progressToken;
      log(`slow ${id} started (${seconds}s in ${steps} steps)`);
      const started = Date.now();
      const others = [...working];
      const entry = { id };
      working.add(entry);
      try {
        for (let i = 1; i <= steps; i++) {
          await sleep((seconds * 1000) / steps, ctx.mcpReq.signal);
          if (token !== undefined) {
            await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: i, total: steps } });
          }
        }
      } catch (e) {
        log(`slow ${id} cancelled after ${Date.now() - started}ms: ${how(ctx.mcpReq.signal.reason ?? e)}`);
        throw e;
      } finally {
        working.delete(entry);
      }
      log(`slow ${id} finished`);
      const result = { content: [{ type: "text", text: `slept ${seconds}s in ${steps} steps` }] };
      if (ctx.mcpReq._meta?.["mcpoke/working"] !== undefined) {
        result._meta = { "mcpoke/working": others.map((o) => o.id) };
      }
      return result;
    },
  );
  server.registerTool(
    "echo",
    { description: "Answers with its text.", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  // greet is a multi round-trip tool (2026-07-28): round 1 answers
  // input_required with a form and a requestState; the retry's
  // inputResponses complete it. It logs the state it got back.
  server.registerTool(
    "greet",
    { description: "Asks the client for a name (input_required), then greets it.", inputSchema: z.object({}) },
    async (_args, ctx) => {
      const id = ctx.mcpReq.id;
      const state = ctx.mcpReq.requestState();
      const who = acceptedContent(ctx.mcpReq.inputResponses, "who");
      if (state === undefined) {
        log(`greet ${id}: input_required`);
        return inputRequired({
          inputRequests: {
            who: inputRequired.elicit({
              message: "Who is there?",
              requestedSchema: { type: "object", properties: { name: { type: "string", default: "Ada" } }, required: ["name"] },
            }),
          },
          requestState: "greet/round-1/\u00e9",
        });
      }
      log(`greet ${id}: retried with requestState ${JSON.stringify(state)} and ${who ? "an answer" : "no answer"}`);
      return { content: [{ type: "text", text: who ? `hello, ${who.name}` : "nobody answered" }] };
    },
  );
  registerTasks(server);
  return server;
}

// The tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks): to
// a client that declared it, research answers at once with a task
// (resultType "task", the Task's fields at top level) and works on in
// four stages; tasks/get answers the task with its result inlined,
// tasks/update takes the answer to its question (ask: true), and
// tasks/cancel is acknowledged with an empty result, the work stopping
// unless ignoreCancel. The tasks outlive the request that made them (one
// store for every client, as over HTTP each request has a server of its
// own); the log says what signal each got.
const TASKS = "io.modelcontextprotocol/tasks";
const tasks = new Map();
const now = () => new Date().toISOString();
const taskView = (t) => {
  const { taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs } = t;
  const v = { taskId, status, createdAt, lastUpdatedAt, ttlMs, pollIntervalMs };
  if (statusMessage) v.statusMessage = statusMessage;
  if (status === "completed") v.result = t.result;
  if (status === "input_required") v.inputRequests = t.inputRequests;
  return v;
};
const setStatus = (t, status, statusMessage) => {
  if (["completed", "failed", "cancelled"].includes(t.status)) return false;
  Object.assign(t, { status, statusMessage, lastUpdatedAt: now() });
  return true;
};
// declaredTasks: the request declared the extension in its _meta
// envelope (2026-07-28: capabilities come with every request).
const declaredTasks = (ctx) =>
  ctx.mcpReq.envelope?.["io.modelcontextprotocol/clientCapabilities"]?.extensions?.[TASKS] !== undefined;
const taskOf = (taskId) => {
  const t = tasks.get(taskId);
  if (!t) throw Object.assign(new Error(`Failed to retrieve task: Task not found: ${taskId}`), { code: -32602 });
  return t;
};

function registerTasks(server) {
  server.registerTool(
    "research",
    {
      description: "Runs as a task of the tasks extension: four stages; ask asks a question mid-way (tasks/update); ignoreCancel acknowledges tasks/cancel and works on.",
      inputSchema: z.object({ seconds: z.number().default(2), ask: z.boolean().default(false), ignoreCancel: z.boolean().default(false) }),
      execution: { taskSupport: "optional" }, // a hint: in 2026-07-28 the server decides
    },
    async ({ seconds, ask, ignoreCancel }, ctx) => {
      if (!declaredTasks(ctx)) return { content: [{ type: "text", text: "no task: the client did not declare the tasks extension" }] };
      const t = { taskId: crypto.randomUUID(), status: "working", statusMessage: "started", createdAt: now(), lastUpdatedAt: now(),
        ttlMs: 300000, pollIntervalMs: 200, ignoreCancel, answer: undefined, wake: undefined };
      tasks.set(t.taskId, t);
      log(`research task ${t.taskId} created for request ${ctx.mcpReq.id}`);
      (async () => {
        const step = (seconds * 1000) / 4;
        for (let i = 1; i <= 4; i++) {
          await new Promise((r) => setTimeout(r, step));
          if (t.status === "cancelled") return;
          if (ask && i === 2) {
            t.inputRequests = { [`confirm-${t.taskId}`]: { method: "elicitation/create", params: { mode: "form", message: "Go on with the research?",
              requestedSchema: { type: "object", properties: { topic: { type: "string", default: "cats" } }, required: ["topic"] } } } };
            setStatus(t, "input_required", "waiting for the topic");
            await new Promise((r) => (t.wake = r));
            if (t.status === "cancelled") return;
            setStatus(t, "working", "resumed");
          }
          setStatus(t, "working", `stage ${i} of 4`);
        }
        t.result = { content: [{ type: "text", text: `research done in ${seconds}s${t.answer ? ` on ${t.answer.topic}` : ""}` }] };
        setStatus(t, "completed", "done");
        log(`research task ${t.taskId} completed`);
      })();
      return { resultType: "task", ...taskView(t) };
    },
  );
  const id = z.object({ taskId: z.string() }).passthrough();
  server.server.setRequestHandler("tasks/get", { params: id }, async ({ taskId }) => ({ resultType: "complete", ...taskView(taskOf(taskId)) }));
  server.server.setRequestHandler("tasks/update", { params: id }, async ({ taskId, inputResponses }, ctx) => {
    const t = taskOf(taskId);
    // The SDK takes inputResponses out of params, as for a multi
    // round-trip retry, and hands them over in ctx.
    const r = (ctx.mcpReq.inputResponses ?? inputResponses)?.[`confirm-${taskId}`];
    if (r && t.status === "input_required") {
      log(`research task ${taskId} got its answer by tasks/update: ${r.action}`);
      t.answer = r.content;
      delete t.inputRequests;
      t.wake?.();
    }
    return { resultType: "complete" };
  });
  server.server.setRequestHandler("tasks/cancel", { params: id }, async ({ taskId }) => {
    const t = taskOf(taskId);
    if (t.ignoreCancel) {
      log(`research task ${taskId}: tasks/cancel received and acknowledged; working on (ignoreCancel)`);
    } else {
      log(`research task ${taskId}: tasks/cancel received; stopping`);
      if (setStatus(t, "cancelled", "cancelled by tasks/cancel")) t.wake?.();
    }
    return { resultType: "complete" };
  });
}

const argv = process.argv.slice(2);
if (argv[0] !== "--http") {
  // The transport is watched for listens opened and cancelled: serveStdio
  // answers them itself, before any tool sees them.
  const wire = new StdioServerTransport();
  let inner;
  Object.defineProperty(wire, "onmessage", {
    get: () => (msg) => {
      if (msg.method === "subscriptions/listen") listenOpened(msg);
      if (msg.method === "notifications/cancelled") listenClosed(msg.params?.requestId, `notifications/cancelled (${msg.params?.reason})`);
      inner?.(msg);
    },
    set: (f) => (inner = f),
  });
  let pinned;
  serveStdio(() => (pinned = newServer()), { transport: wire, onerror: (e) => log(`error: ${e.message}`) });
  setInterval(() => {
    ticks++;
    // Unasked updates only to a subscriber (the SDK routes a 2026-07-28
    // one onto the listens that name the ticker).
    if (pinned?.isConnected() && (subscribed || listens.size > 0)) pinned.server.sendResourceUpdated({ uri: TICKER }).catch(() => {});
  }, tickMs).unref();
} else {
  const handler = createMcpHandler(() => newServer(), { onerror: (e) => log(`error: ${e.message}`) });
  setInterval(() => {
    ticks++;
    handler.notify.resourceUpdated(TICKER);
  }, tickMs).unref();
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const abort = new AbortController();
    let msg;
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString());
    } catch {}
    if (msg?.method === "subscriptions/listen") listenOpened(msg);
    // A client that closes the response (mcpoke's cancel in 2026-07-28)
    // aborts the web request the SDK serves.
    res.on("close", () => {
      if (!res.writableFinished) {
        if (msg?.method === "subscriptions/listen") listenClosed(msg.id, "stream closed");
        abort.abort(new Error("client closed the response stream"));
      }
    });
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers: req.headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
      signal: abort.signal,
    });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return res.end();
    try {
      for await (const chunk of response.body) res.write(chunk);
    } catch {
      // the client went away
    }
    res.end();
  });
  http.listen(Number(argv[1] || 0), "127.0.0.1", () => {
    log(`Streamable HTTP at http://127.0.0.1:${http.address().port}/mcp`);
  });
}
