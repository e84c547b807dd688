// A player loop in Node.js against the GDL reasoner service.
//
//   node example.js HOST:PORT GAME.kif [--playouts N] [--in-flight K] [--batch B] [--mc M]
//                   [--seed S] [--token T] [--tls-root CA.pem] [--server-name NAME]
//
// It loads the game, plays N random playouts through one Session stream with K playouts
// interleaved on it (so that K requests are in flight, sent up to B in a message), then chooses the first player's
// first move by flat Monte Carlo: one Simulate with a start per child of the initial state,
// M playouts each. It prints one JSON object with what it measured and chose; its
// `badRequest` shows a request sent without a state on purpose, refused as expected
// (INVALID_ARGUMENT on its own tag) while the stream went on. For a GDL-II game (GameInfo's
// gdl2, such as games/montyhall.kif) it also plays one seeded random game and prints, per
// joint move, what each role perceived (`perceived`, from Next's Successor.percepts).
//
// Over TLS (--tls-root) the certificate is checked for the target's host; where that is an
// IP address, for --server-name instead (default: localhost for a loopback address), which
// is also the name sent in the handshake (TLS may not name a server by its address).
//
// The wire format, as @grpc/proto-loader presents it with the options below: field names
// in camelCase (gameId, jointMoves), 64-bit integers as JavaScript numbers (ids and tags
// stay far below 2^53), enums as their names, oneofs named by a `response` (or `request`)
// property, and absent fields with their defaults. A state is {fluents: [id, ...]}; a move
// id indexes GameInfo.moves, one table over all roles.

"use strict";

const path = require("path");
const fs = require("fs");
const net = require("net");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTO = path.join(__dirname, "..", "..", "proto", "reasoner", "v1", "reasoner.proto");
const LOADER_OPTIONS = { keepCase: false, longs: Number, enums: String, defaults: true,
                         oneofs: true, includeDirs: [path.join(__dirname, "..", "..", "proto")] };

function parseArguments(argv) {
  const [target, gamePath, ...rest] = argv;
  if (!target || !gamePath) {
    throw new Error("usage: node example.js HOST:PORT GAME.kif [--playouts N] " +
                    "[--in-flight K] [--batch B] [--mc M] [--seed S] [--token T] " +
                    "[--tls-root CA.pem] [--server-name NAME]");
  }
  const options = { target, gamePath, playouts: 200, inFlight: 16, batch: 256, mc: 50, seed: 1,
                    token: "", tlsRoot: "", serverName: "" };
  for (let i = 0; i < rest.length; i += 2) {
    const name = rest[i].replace(/^--/, "").replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (!(name in options)) throw new Error(`unknown option ${rest[i]}`);
    options[name] = typeof options[name] === "string" ? rest[i + 1] : Number(rest[i + 1]);
  }
  return options;
}

// A small seeded generator (mulberry32), so that a run can be repeated.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unary(client, method, request, metadata) {
  return new Promise((resolve, reject) => {
    client[method](request, metadata, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

// One Session stream: ask(kind, request) sends a request with a fresh tag and resolves with
// its answer; a failed request rejects with its own status and the stream goes on. The
// requests asked in one turn of the event loop travel in one message (the first, with the
// others in its `more`), and the server answers them in one message the same way: a message
// costs the transport far more than a small request does.
function openSession(client, metadata, batch = 256) {
  const stream = client.Session(metadata);
  const pending = new Map();
  let outgoing = [];
  let nextTag = 0;
  function settle(answer) {
    const waiting = pending.get(answer.tag);
    pending.delete(answer.tag);
    if (answer.response === "error") {
      const error = new Error(answer.error.message);
      error.code = answer.error.code;
      waiting.reject(error);
    } else {
      waiting.resolve(answer[answer.response]);
    }
  }
  function flush() {
    while (outgoing.length > 0) {
      const [first, ...more] = outgoing.splice(0, batch);
      stream.write({ ...first, more });
    }
  }
  stream.on("data", (message) => {
    settle(message);
    for (const answer of message.more) settle(answer);
  });
  stream.on("error", (error) => {
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  });
  return {
    ask(kind, request) {
      const tag = nextTag++;
      return new Promise((resolve, reject) => {
        pending.set(tag, { resolve, reject });
        if (outgoing.length === 0) setImmediate(flush);
        outgoing.push({ tag, [kind]: request });
      });
    },
    close() { stream.end(); },
  };
}

async function randomPlayout(session, gameId, pick, maxSteps) {
  let { state, info } = await session.ask("initialState", { gameId });
  let steps = 0;
  while (!info.terminal && steps < maxSteps) {
    const joint = info.legal.map((moves) => moves.ids[Math.floor(pick() * moves.ids.length)]);
    const answer = await session.ask("next", { gameId, state, jointMoves: [{ moves: joint }] });
    ({ state, info } = answer.successors[0]);
    steps += 1;
  }
  return steps;
}

// GDL-II: one random game (the random role's moves drawn uniformly, as every role's) and,
// per joint move, the moves and what each role perceived after it: Next's successor
// carries per role (role order) percept ids into GameInfo.percepts, a table of
// {role: role index, text: GDL text}.
async function perceivedGame(session, game, pick, maxSteps) {
  const gameId = game.gameId;
  let { state, info } = await session.ask("initialState", { gameId });
  const turns = [];
  while (!info.terminal && turns.length < maxSteps) {
    const joint = info.legal.map((moves) => moves.ids[Math.floor(pick() * moves.ids.length)]);
    const answer = await session.ask("next", { gameId, state, jointMoves: [{ moves: joint }] });
    const successor = answer.successors[0];
    turns.push({
      moves: joint.map((id) => game.moves[id].text),
      percepts: Object.fromEntries(game.roles.map((role, r) => [
        role, successor.percepts[r].perceptIds.map((id) => game.percepts[id].text)])),
    });
    ({ state, info } = successor);
  }
  return turns;
}

// The channel options of a TLS connection to `target`: where its host is an IP address,
// the name the certificate must carry (TLS sends a name, never an address: Node warns
// DEP0123 and will ignore an address).
function tlsNameOptions(target, serverName) {
  const host = target.replace(/^dns:\/*/, "").replace(/:\d+$/, "").replace(/^\[(.*)\]$/, "$1");
  if (serverName) return { "grpc.ssl_target_name_override": serverName };
  if (net.isIP(host) === 0) return {};
  const loopback = host === "::1" || host.startsWith("127.");
  return loopback ? { "grpc.ssl_target_name_override": "localhost" } : {};
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const definition = protoLoader.loadSync(PROTO, LOADER_OPTIONS);
  const reasoner = grpc.loadPackageDefinition(definition).reasoner.v1;
  // TLS when the server has a certificate (--tls-root names the CA to trust).
  const credentials = options.tlsRoot
    ? grpc.credentials.createSsl(fs.readFileSync(options.tlsRoot))
    : grpc.credentials.createInsecure();
  const client = new reasoner.Reasoner(options.target, credentials, {
    "grpc.max_receive_message_length": 64 * 1024 * 1024,
    ...(options.tlsRoot ? tlsNameOptions(options.target, options.serverName) : {}),
  });
  const metadata = new grpc.Metadata();
  if (options.token) metadata.set("authorization", `Bearer ${options.token}`);
  const gdl = fs.readFileSync(options.gamePath, "utf8");
  const { game } = await unary(client, "LoadGame", { gdl }, metadata);
  const gameId = game.gameId;

  // Random playouts, options.inFlight of them interleaved on one stream.
  const session = openSession(client, metadata, options.batch);
  const pick = random(options.seed);
  let started = 0;
  let steps = 0;
  const begin = process.hrtime.bigint();
  async function worker() {
    while (started < options.playouts) {
      started += 1;
      const made = await randomPlayout(session, gameId, pick, 1000);
      steps += made;  // (not `steps += await ...`, which reads steps before the wait)
    }
  }
  await Promise.all(Array.from({ length: options.inFlight }, worker));
  const seconds = Number(process.hrtime.bigint() - begin) / 1e9;

  // A bad request on purpose: a query without a state. It is refused on its own tag
  // (INVALID_ARGUMENT) and the stream goes on.
  const badRequest = { sent: "query without a state", refusedAsExpected: false, code: 0,
                       message: "" };
  try {
    await session.ask("query", { gameId });
  } catch (error) {
    Object.assign(badRequest, { refusedAsExpected: error.code === grpc.status.INVALID_ARGUMENT,
                                code: error.code, message: error.message });
  }

  // Flat Monte Carlo over the first role's moves from the initial state: one Simulate
  // with a start per child.
  const initial = await session.ask("initialState", { gameId });
  const expanded = await session.ask("expand", { gameId, state: initial.state });
  const simulated = await session.ask("simulate", {
    gameId, seed: options.seed, columns: true,
    starts: expanded.children.map((child) => ({ state: child.successor.state, playouts: options.mc })),
  });
  const roles = game.roles.length;
  const goals = simulated.columns.goals;  // playout-major, one value per role, -1 for none
  let best = null;
  expanded.children.forEach((child, index) => {
    let total = 0;
    for (let p = index * options.mc; p < (index + 1) * options.mc; p += 1) {
      total += Math.max(goals[p * roles], 0);
    }
    const mean = total / options.mc;
    if (best === null || mean > best.mean) best = { mean, joint: child.jointMove.moves };
  });
  // GDL-II only (the output of a plain game is as it was): one game's percepts.
  const gdl2 = game.gdl2
    ? { randomRole: game.randomRole,
        perceived: await perceivedGame(session, game, random(options.seed), 1000) }
    : {};
  session.close();
  client.close();
  console.log(JSON.stringify({
    game: path.basename(options.gamePath), roles: game.roles, playouts: options.playouts,
    inFlight: options.inFlight, batch: options.batch, steps, seconds,
    stepsPerSec: Math.round(steps / seconds),
    badRequest,
    bestMove: game.moves[best.joint[0]].text, bestMean: best.mean,
    children: expanded.children.length, simulatedPlayouts: simulated.columns.lengths.length,
    ...gdl2,
  }));
}

main().catch((error) => {
  console.error(`example.js: ${error.message}`);
  process.exit(1);
});
