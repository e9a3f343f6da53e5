// Scores a run of the official MCP conformance suite against one of its
// frozen requirement sets, as mcpoke's CI counts: a scenario passes when
// its checks.json has no FAILURE and no WARNING (a SHOULD missed is a
// failure here, as the suite's client summary counts it), and a scenario
// with no results fails.
//
//   node score.mjs REQUIREMENTS.yaml server|client RESULTS_DIR [EXTRA...]
//
// The scored scenarios are the set's list for the role; EXTRA names more
// that mcpoke holds itself to (not scored by the suite, passing today).
// Prints one line per scenario that fails, with its failing checks and
// the file to open, then "role: passed/scored"; exits 1 on any failure.
import fs from 'node:fs';
import path from 'node:path';

const [reqFile, role, dir, ...extra] = process.argv.slice(2);
if (!reqFile || !['server', 'client'].includes(role) || !dir) {
	console.error('usage: node score.mjs REQUIREMENTS.yaml server|client RESULTS_DIR [EXTRA...]');
	process.exit(2);
}

// The set's list for role: the "  - name" lines under "role:".
const scored = [];
let inRole = false;
for (const line of fs.readFileSync(reqFile, 'utf8').split('\n')) {
	if (/^\S/.test(line)) inRole = line.startsWith(role + ':');
	const m = inRole && line.match(/^ {2}- ([\w/.-]+)/);
	if (m) scored.push(m[1]);
}
if (scored.length === 0) {
	console.error(`score: no ${role} scenarios in ${reqFile}`);
	process.exit(2);
}

// checks.json by scenario: the directory is [server-]SCENARIO-TIMESTAMP.
const results = new Map();
const walk = (d) => {
	for (const e of fs.readdirSync(d, { withFileTypes: true })) {
		const p = path.join(d, e.name);
		if (e.isDirectory()) walk(p);
		else if (e.name === 'checks.json') {
			let name = path.relative(dir, d).replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
			if (role === 'server') name = name.replace(/^server-/, '');
			results.set(name, p);
		}
	}
};
if (fs.existsSync(dir)) walk(dir);

let passed = 0;
let heldFailed = 0;
const held = extra.filter((s) => !scored.includes(s));
for (const name of [...scored, ...held]) {
	const isHeld = !scored.includes(name);
	const fail = (why) => {
		if (isHeld) heldFailed++;
		console.log(`FAIL ${name}${isHeld ? ' (held to by mcpoke, not scored by the suite)' : ''}: ${why}`);
	};
	const file = results.get(name);
	if (!file) {
		fail('no results');
		continue;
	}
	const bad = JSON.parse(fs.readFileSync(file, 'utf8')).filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
	if (bad.length > 0) {
		fail(file);
		for (const c of bad) console.log(`  ${c.status} ${c.id}: ${String(c.errorMessage || c.description || '').slice(0, 300)}`);
	} else if (!isHeld) passed++;
}
console.log(`${role}: ${passed}/${scored.length} scored scenarios passed` +
	(held.length ? `; ${held.length - heldFailed}/${held.length} more that mcpoke holds itself to` : ''));
process.exit(passed === scored.length && heldFailed === 0 ? 0 : 1);
