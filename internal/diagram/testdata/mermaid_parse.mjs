// Parses Mermaid files with the official mermaid package, as GitHub
// would render them: TestMermaidOfficialParser runs it when
// MCPOKE_MERMAID_DIR holds node_modules with mermaid and jsdom
// (npm install mermaid@12 jsdom). Usage: node mermaid_parse.mjs FILE...
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';

const dir = process.env.MCPOKE_MERMAID_DIR;
const require = createRequire(path.join(dir, 'package.json'));
const { JSDOM } = require('jsdom');
const dom = new JSDOM('<!DOCTYPE html><body></body>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
globalThis.DOMParser = dom.window.DOMParser;
globalThis.Element = dom.window.Element;
const entry = path.join(dir, 'node_modules', 'mermaid', 'dist', 'mermaid.core.mjs');
const { default: mermaid } = await import(pathToFileURL(entry).href);
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
let bad = 0;
for (const f of process.argv.slice(2)) {
  try {
    await mermaid.parse(fs.readFileSync(f, 'utf8'));
  } catch (e) {
    bad++;
    console.log(`${f}: ${String(e.message || e).slice(0, 500)}`);
  }
}
process.exit(bad ? 1 : 0);
