#!/usr/bin/env -S node --experimental-websocket
// A Tapete client in another language than the server's and the web client's: it plays one
// seat of a table against computer players through the documented interface only, the HTTP
// API (OpenAPI at /api/openapi.json) and the table WebSocket (docs/dev/protocol.md). It
// needs nothing but Node 20.10 or later (`fetch` is built in; the global WebSocket needs
// `--experimental-websocket` on Node 20, which the first line passes).
//
// It is also a conformance check of the protocol: anything the documents do not lead it
// to expect (an unknown message, a patch it cannot apply, a version that skips one) ends it
// with status 1 and a sentence saying what and where. See README.md beside it.

import { closeSync, openSync, writeFileSync, writeSync } from "node:fs";
import { parseArgs } from "node:util";

const USAGE = `usage: node --experimental-websocket tapete-client.mjs [options]
  --server URL          the Tapete server (default http://127.0.0.1:8000)
  --game NAME           mil or mariage, as GET /api/config lists them (default mil)
  --profile NAME        a profile of that game (default: the game's first)
  --level LEVEL         the computer players' level (default rules)
  --seed N              the deal (the table's "seed": such a game is not ranked) and the
                        seed of this client's random choices (default: a fair deal, choices
                        seeded with 1)
  --max-deals N         stop the game after N deals ("max_deals": a short game)
  --name NAME           the name to play under (default Bot)
  --language LANG       the table's language, es, pt or en (default en)
  --drop-at-version N   drop the socket once, at version N or later, when a computer is to
                        act, and come back with {"type": "sync", "since": V}
  --no-patches          ask for whole views (no "patches=1")
  --stale-once          on its first turn, first send the action with the version before,
                        which the server must refuse with a stale_version error
  --log FILE            write every message received, one JSON object a line
  --final-view FILE     write the view the messages built, at the end, as JSON
  --timeout S           give up after S seconds (default 300)`;

// ---- options ---------------------------------------------------------------------------

function usageError(text) {
  process.stderr.write(`tapete-client: ${text}\n${USAGE}\n`);
  process.exit(2);
}

let args;
try {
  args = parseArgs({
    options: {
      server: { type: "string", default: "http://127.0.0.1:8000" },
      game: { type: "string", default: "mil" },
      profile: { type: "string" },
      level: { type: "string", default: "rules" },
      seed: { type: "string" },
      "max-deals": { type: "string" },
      name: { type: "string", default: "Bot" },
      language: { type: "string", default: "en" },
      "drop-at-version": { type: "string" },
      "no-patches": { type: "boolean", default: false },
      "stale-once": { type: "boolean", default: false },
      log: { type: "string" },
      "final-view": { type: "string" },
      timeout: { type: "string", default: "300" },
      help: { type: "boolean", default: false },
    },
  }).values;
} catch (e) {
  usageError(e.message);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

function wholeNumber(name, text) {
  if (text === undefined) return undefined;
  // (JSON numbers past 2**53 lose digits in JavaScript: such a seed would not be the one asked)
  if (!/^[0-9]+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    usageError(`--${name} must be a whole number below 2**53, got ${text}`);
  }
  return Number(text);
}

const seed = wholeNumber("seed", args.seed);
const maxDeals = wholeNumber("max-deals", args["max-deals"]);
const dropAt = wholeNumber("drop-at-version", args["drop-at-version"]);
const timeoutS = wholeNumber("timeout", args.timeout);
const server = args.server.replace(/\/+$/, "");

if (typeof WebSocket === "undefined") {
  usageError("no global WebSocket: run it with node --experimental-websocket (Node 20.10+)");
}

// ---- failures ------------------------------------------------------------------------------

let logFd = null;
if (args.log) logFd = openSync(args.log, "w");

// Where the client is, for the failure messages: the version it holds and the last message.
const where = { version: null, message: null };

class Surprise extends Error {}

function fail(text) {
  const at = where.version === null ? "before the first view" : `holding version ${where.version}`;
  const last = where.message === null ? "" : `\n  last message: ${JSON.stringify(where.message).slice(0, 400)}`;
  throw new Surprise(`${text} (${at})${last}`);
}

function finish(status, line) {
  if (logFd !== null) closeSync(logFd);
  (status === 0 ? process.stdout : process.stderr).write(`${line}\n`);
  process.exit(status);
}

// ---- seeded choices ------------------------------------------------------------------------

// mulberry32: a small 32-bit generator, so that a run's choices depend on --seed only.
function generator(n) {
  let a = Number(BigInt(n) % 4294967296n) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = generator(seed ?? 1);

// ---- HTTP ----------------------------------------------------------------------------------

async function http(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json"; // the only type POST takes (415 else)
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(`${server}${path}`, init);
  } catch (e) {
    finish(2, `tapete-client: cannot reach ${server}: ${e.cause?.message ?? e.message}`);
  }
  const text = await response.text();
  let data = null;
  try {
    data = JSON.parse(text);
  } catch {
    fail(`${method} ${path} answered ${response.status} with no JSON: ${text.slice(0, 200)}`);
  }
  return { status: response.status, data };
}

// ---- the table -----------------------------------------------------------------------------

let game, profile, table, token; // the game's entry in /api/config, the table and its seat's token

// GET /api/config: the games, their seats, profiles and the key of their final standing. A
// client branches on no game name: it reads these instead.
async function setUp() {
  const config = await http("GET", "/api/config");
  if (config.status !== 200) fail(`GET /api/config answered ${config.status}`);
  const kind = config.data.kinds.find((k) => k.name === args.game);
  if (!kind) usageError(`no game ${args.game} here: ${config.data.kinds.map((k) => k.name).join(", ")}`);
  const name = args.profile ?? kind.profiles[0].name;
  if (!kind.profiles.some((p) => p.name === name)) {
    usageError(`no profile ${name} for ${kind.name}: ${kind.profiles.map((p) => p.name).join(", ")}`);
  }
  if (!config.data.levels.includes(args.level)) {
    usageError(`no level ${args.level}: ${config.data.levels.join(", ")}`);
  }
  // POST /api/tables with `levels`: this client at seat 0, a computer at every other seat.
  const body = {
    game: kind.name,
    profile: name,
    name: args.name,
    language: args.language,
    levels: Array(kind.seats - 1).fill(args.level),
  };
  if (seed !== undefined) body.seed = seed;
  if (maxDeals !== undefined) body.max_deals = maxDeals;
  const created = await http("POST", "/api/tables", body);
  if (created.status !== 201) {
    finish(2, `tapete-client: POST /api/tables answered ${created.status}: ${created.data.error}`);
  }
  return { game: kind, profile: name, table: created.data.table, token: created.data.token };
}

// ---- the view ------------------------------------------------------------------------------

let view = null; // the seat's view as the last message left it
let version = null; // the version of that view
let clocks = null; // a table with seat clocks sends them beside the view (not this one)
let acted = null; // the version this client last sent an action for
let sentAction = null; // the action it sent, to send again after `not_saved`
let gameOverScores = null; // the `game_over` event's standing, to compare with the view's
let staleAsked = false; // a stale action was sent on purpose (--stale-once), not yet refused
const counts = { messages: 0, actions: 0, reconnections: 0, caughtUp: 0, stale: 0 };

function isVersion(v) {
  return Number.isInteger(v) && v >= 0;
}

function checkView(v, what) {
  for (const key of ["seat", "players", "legal", "over"]) {
    if (!(key in v)) fail(`${what}: the view has no "${key}"`);
  }
}

// The score sheet is sent once: a message's `view.sheet` holds the rows from `sheet_from`
// on, which go after the first `sheet_from` rows held (protocol.md, "The score sheet is sent
// once"). A client holding fewer rows missed a message: here that is a surprise.
function wholeSheet(rows, from, held, what) {
  if (from === 0) return rows;
  const old = held?.sheet;
  if (!Array.isArray(old)) fail(`${what}: sheet_from ${from} but no sheet is held`);
  if (old.length < from) fail(`${what}: sheet_from ${from} past the ${old.length} rows held`);
  return old.slice(0, from).concat(rows);
}

// Each `deal_end` event carries exactly the new row of the sheet.
function checkEvents(events, v, what) {
  for (const e of events) {
    if (e.type === "deal_end" && JSON.stringify(v.sheet?.[e.deal]) !== JSON.stringify(e.row)) {
      fail(`${what}: the deal_end event of deal ${e.deal} is not the sheet's row ${e.deal}`);
    }
    if (e.type === "game_over") gameOverScores = e.scores;
  }
}

// A whole `view` message. One with events is the next version; one without (the first of a
// connection, the answer to `sync`, a resend) is the truth, whatever version it holds.
function onView(m) {
  if (!isVersion(m.version) || typeof m.view !== "object" || !Number.isInteger(m.sheet_from)) {
    fail("a view message without a version, a view or sheet_from");
  }
  if (!Array.isArray(m.events)) fail("a view message without events");
  if (m.events.length > 0 && m.version !== version + 1) {
    fail(`a view of version ${m.version} with events, after version ${version}: a version gap`);
  }
  const next = { ...m.view };
  if ("sheet" in next) next.sheet = wholeSheet(next.sheet, m.sheet_from, view, `view ${m.version}`);
  checkView(next, `view ${m.version}`);
  checkEvents(m.events, next, `view ${m.version}`);
  view = next;
  version = m.version;
  if (m.clocks) clocks = m.clocks;
}

// A `patch`: the view's top-level keys that changed since the view of version `patch_of`
// (protocol.md, "Patches", steps 1 to 5).
function onPatch(m) {
  if (!isVersion(m.version) || !isVersion(m.patch_of)) fail("a patch without version or patch_of");
  if (!Array.isArray(m.removed) || typeof m.view !== "object" || !Array.isArray(m.events)) {
    fail("a patch without removed, view or events");
  }
  if (view === null) fail("a patch before any whole view");
  // 1. it must patch the view held (a client that may miss messages would ask `sync`)
  if (m.patch_of !== version) fail(`a patch of version ${m.patch_of}, but version ${version} is held`);
  if (m.version !== version + 1) fail(`a patch to version ${m.version} from ${version}: a version gap`);
  const next = { ...view };
  // 2. the keys the view no longer has
  for (const key of m.removed) {
    if (!(key in next)) fail(`patch ${m.version} removes "${key}", which the view held has not`);
    delete next[key];
  }
  // 3. every key of the patch's view, whole; 4. the sheet's new rows after the ones held
  for (const [key, value] of Object.entries(m.view)) {
    next[key] = key === "sheet" ? wholeSheet(value, m.sheet_from, view, `patch ${m.version}`) : value;
  }
  checkView(next, `patch ${m.version}`);
  checkEvents(m.events, next, `patch ${m.version}`);
  view = next;
  version = m.version;
  // 5. clocks: a patch without them leaves them as they were
  if (m.clocks) clocks = m.clocks;
}

// ---- the connection --------------------------------------------------------------------

const wsBase = server.replace(/^http/, "ws");
let socket = null;
let syncSince = null; // while catching up after a reconnection: the version asked from
let syncViews = 0; // the whole views received since that reconnection
let syncEvents = null; // the `events` answer to that sync
let dropped = false;

// The token travels as a subprotocol beside "tapete", never in the address (protocol.md,
// "Where the token travels"); patches=1 asks for patches instead of whole views.
function connect() {
  const query = args["no-patches"] ? "" : "?patches=1";
  const ws = new WebSocket(`${wsBase}/ws/${table}${query}`, ["tapete", `tapete.token.${token}`]);
  socket = ws;
  ws.binaryType = "arraybuffer";
  ws.addEventListener("open", () =>
    guarded(() => {
      if (ws.protocol !== "tapete") fail(`the server chose the subprotocol "${ws.protocol}"`);
      if (syncSince !== null) send({ type: "sync", since: syncSince });
    }),
  );
  ws.addEventListener("message", (event) => {
    if (ws === socket) guarded(() => onMessage(event.data)); // not the one dropped
  });
  ws.addEventListener("close", (event) => {
    if (ws !== socket) return; // the socket this client dropped itself
    guarded(() => fail(`the server closed the socket: code ${event.code} ${event.reason}`));
  });
  ws.addEventListener("error", () => {
    if (ws !== socket) return;
    guarded(() => fail("the socket failed (the server refused it or went away)"));
  });
}

function send(message) {
  socket.send(JSON.stringify(message));
}

function onMessage(data) {
  const text = typeof data === "string" ? data : new TextDecoder().decode(data);
  let m;
  try {
    m = JSON.parse(text);
  } catch {
    fail(`a message that is not JSON: ${text.slice(0, 200)}`);
  }
  counts.messages += 1;
  where.message = m;
  if (logFd !== null) writeSync(logFd, `${JSON.stringify(m)}\n`);
  if (m === null || typeof m !== "object" || Array.isArray(m)) fail("a message that is not an object");
  switch (m.type) {
    case "view":
      onView(m);
      if (syncSince !== null) caughtUp(m);
      break;
    case "patch":
      onPatch(m);
      break;
    case "events":
      onEvents(m);
      break;
    case "error":
      onError(m);
      return;
    // documented, but for tables of several people or for what this client never asks;
    // they change nothing here
    case "presence":
    case "chat":
    case "hint":
    case "takeover":
    case "giveback":
    case "abandoned":
      return;
    default:
      fail(`a message of unknown type ${JSON.stringify(m.type)}`);
  }
  where.version = version;
  next();
}

// The answer to {"type": "sync", "since": V}: the events of every version V+1..now.
function onEvents(m) {
  if (syncSince === null) fail("an events message nobody asked for");
  if (m.since !== syncSince) fail(`an events message since ${m.since}, but ${syncSince} was asked`);
  if (!Array.isArray(m.steps)) fail("an events message without steps");
  m.steps.forEach((step, i) => {
    if (step.version !== syncSince + 1 + i) {
      fail(`the events' step ${i} is version ${step.version}, not ${syncSince + 1 + i}: a gap`);
    }
  });
  const last = syncSince + m.steps.length;
  if (last !== m.version) fail(`the events end at version ${last}, not at their version ${m.version}`);
  // the connection's own first view may be newer than V, never newer than the events
  if (version > m.version) fail(`the events reach version ${m.version}, the view held is ${version}`);
  syncEvents = m;
}

// After a reconnection: the connection's first view, then the `events` and the current view,
// both views without events. (A computer still playing may send its moves in between: they
// are the next versions, as ever.)
function caughtUp(m) {
  if (m.events.length > 0) return;
  syncViews += 1;
  if (syncViews < 2) return;
  if (syncEvents === null) fail("the answer to sync came without its events message");
  if (m.version !== syncEvents.version) {
    fail(`the view after the events is version ${m.version}, the events end at ${syncEvents.version}`);
  }
  counts.caughtUp = syncEvents.steps.length;
  syncSince = null;
}

// Errors change nothing at the table (protocol.md): some say "try again", the rest mean this
// client did something the documents did not lead it to.
function onError(m) {
  const said = `error ${m.code}: ${m.detail}`;
  if (m.code === "stale_version") {
    // the table moved on from the view the choice was made on: its newer view has come or
    // is on its way, and the choice is made again on it. Here only --stale-once causes it.
    if (!staleAsked) fail(said);
    staleAsked = false;
    counts.stale += 1;
    return;
  }
  if (m.code === "not_saved" || m.code === "rate_limited") {
    // the table is as before the action: send it again in a moment
    setTimeout(() => guarded(() => sentAction && send(sentAction)), 500);
    return;
  }
  fail(said);
}

// After every message: stop when the game is over, drop the socket once if asked, act on
// this seat's turn.
function next() {
  if (view === null || syncSince !== null) return;
  if (view.over) return done();
  const ours = view.turn === view.seat && view.legal.length > 0;
  if (dropAt !== undefined && !dropped && version >= dropAt && !ours) {
    // a computer is to act: it plays on while this client is away, so `sync` has events
    dropped = true;
    counts.reconnections += 1;
    const old = socket;
    socket = null;
    old.close(1000, "the example drops its socket");
    syncSince = version;
    syncViews = 0;
    syncEvents = null;
    setTimeout(() => guarded(connect), 300);
    return;
  }
  if (ours && acted !== version) {
    const action = view.legal[Math.floor(random() * view.legal.length)];
    if (args["stale-once"] && counts.stale === 0 && !staleAsked && version > 0) {
      // the same choice with the version before: "stale_version whoever sent it"
      staleAsked = true;
      send({ type: "act", version: version - 1, action });
    }
    sentAction = { type: "act", version, action };
    acted = version;
    counts.actions += 1;
    send(sentAction);
  }
}

function done() {
  if (staleAsked) fail("the action sent with an old version got no stale_version error");
  const standing = view[game.score_key];
  if (gameOverScores !== null && JSON.stringify(gameOverScores) !== JSON.stringify(standing)) {
    fail(`the game_over event's scores ${JSON.stringify(gameOverScores)} are not the view's`);
  }
  const old = socket;
  socket = null;
  old.close(1000, "game over");
  if (args["final-view"]) writeFileSync(args["final-view"], `${JSON.stringify(view)}\n`);
  const fields = {
    game: game.name,
    profile,
    table,
    version,
    winner: view.winner,
    [game.score_key]: standing,
    actions: counts.actions,
    messages: counts.messages,
    reconnections: counts.reconnections,
    caught_up: counts.caughtUp,
    stale: counts.stale,
  };
  const line = Object.entries(fields).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  finish(0, `over ${line.join(" ")}`);
}

// Every handler runs through here: a surprise (or a bug) ends the program with status 1.
function guarded(f) {
  try {
    f();
  } catch (e) {
    report(e);
  }
}

function report(e) {
  const at = table === undefined ? "" : ` table ${table}:`;
  finish(1, `tapete-client:${at} ${e instanceof Surprise ? e.message : e.stack}`);
}

setTimeout(() => {
  guarded(() => fail(`no end after ${timeoutS} s`));
}, timeoutS * 1000);
try {
  ({ game, profile, table, token } = await setUp());
} catch (e) {
  report(e);
}
guarded(connect);
