// A lossless consumer of one table's public stream, written from docs/streams.md,
// docs/messages.md and the JSON Schema (`studio schema`) alone. Usage:
//   node consumer.mjs STREAM REPLAY SERVER_KEY CLIENT_PUBLIC CLIENT_SECRET SCHEMA TABLE
// Prints "ready" once subscribed and caught up. The producer writes the last public seq it
// published to stdin and closes it (the stream itself never says "this was the last event"); once
// that seq is delivered, prints one JSON line {"delivered": [[seq, type], ...], "validated": n,
// "heartbeats": n, "replayed": n}. Exits 1 with the reason on a schema or protocol violation, a refused replay,
// or nothing for 10 s.
import { readFileSync } from "node:fs";
import * as zmq from "zeromq";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const [stream, replay, serverKey, clientPublic, clientSecret, schemaPath, table] =
  process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
// The schema's `envelope` holds every per-type rule (body, audiences, face-down cards, version):
// one validator for every event. ajv's `discriminator` picks the branch by `type` for precise
// errors; it does not take OpenAPI's `mapping`, and needs none (each branch's `type` is a const).
delete schema.envelope.discriminator.mapping;
const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: true });
addFormats(ajv);
const validateEnvelope = ajv.compile(schema.envelope);
const validateHeartbeat = ajv.compile(schema.heartbeat);

let last = 0;
let validated = 0;
let heartbeats = 0;
let replayed = 0;
const delivered = [];

let lastWanted = null;
let stdinText = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  stdinText += chunk;
});
process.stdin.on("end", () => {
  lastWanted = Number(stdinText.trim());
  if (!Number.isInteger(lastWanted)) fail(`bad last seq on stdin: ${stdinText}`);
});

function fail(reason) {
  process.stderr.write(`${reason}\n`);
  process.exit(1);
}

function decimal(frame, what) {
  const text = frame.toString("ascii");
  if (!/^[0-9]+$/.test(text)) fail(`${what} is not ASCII decimal: ${text}`);
  return Number(text);
}

function check(envelope) {
  if (!validateEnvelope(envelope)) {
    fail(`envelope ${envelope.seq} invalid: ${ajv.errorsText(validateEnvelope.errors)}`);
  }
  // What the schema cannot know: which stream and table this is.
  if (envelope.audience !== "public") fail(`restricted event ${envelope.seq} on the public stream`);
  if (envelope.table !== table) fail(`event of table ${envelope.table} in ${table}'s stream`);
  validated += 1;
}

function checkHeartbeat(payload, position) {
  const beat = JSON.parse(payload.toString("utf8"));
  if (!validateHeartbeat(beat)) {
    fail(`heartbeat invalid: ${ajv.errorsText(validateHeartbeat.errors)}`);
  }
  if (beat.table !== table) fail(`heartbeat of table ${beat.table}`);
  if (beat.last_seq !== position) fail(`heartbeat last_seq ${beat.last_seq} != ${position}`);
  heartbeats += 1;
}

function deliver(envelope) {
  if (envelope.seq <= last) return;
  last = envelope.seq;
  delivered.push([envelope.seq, envelope.type]);
}

const dealer = new zmq.Dealer({
  curveServerKey: serverKey,
  curvePublicKey: clientPublic,
  curveSecretKey: clientSecret,
  receiveTimeout: 5000,
  linger: 0,
});
dealer.connect(replay);
let requestNumber = 0;

async function catchUp() {
  for (;;) {
    const id = `node-${requestNumber++}`;
    await dealer.send(JSON.stringify({ id, op: "events", from: last + 1, audience: "public" }));
    let frames;
    do {
      frames = await dealer.receive();
    } while (JSON.parse(frames[0].toString()).id !== id);
    const header = JSON.parse(frames[0].toString());
    if (header.status !== "ok") fail(`replay refused: ${header.reason}`);
    const events = frames.slice(1).map((f) => JSON.parse(f.toString("utf8")));
    if (events.length !== header.count) fail(`replay said ${header.count}, sent ${events.length}`);
    for (const envelope of events) {
      check(envelope);
      if (envelope.seq <= last) fail(`replay went back to ${envelope.seq} after ${last}`);
      replayed += 1;
      deliver(envelope);
    }
    if (!header.more || events.length === 0) return;
  }
}

const sub = new zmq.Subscriber({ receiveTimeout: 10000, linger: 0 });
sub.connect(stream);
sub.subscribe(`${table}.`);
await catchUp();
process.stdout.write("ready\n");
while (lastWanted === null || last < lastWanted) {
  let frames;
  try {
    frames = await sub.receive();
  } catch (err) {
    fail(`no message for 10 s at seq ${last}: ${err}`);
  }
  if (frames.length !== 3) fail(`a stream message has 3 frames, not ${frames.length}`);
  const [topicFrame, payload, positionFrame] = frames;
  const topic = topicFrame.toString("utf8");
  const position = decimal(positionFrame, "position");
  if (topic === `${table}.heartbeat`) {
    checkHeartbeat(payload, position);
    if (position > last) await catchUp();
    continue;
  }
  const envelope = JSON.parse(payload.toString("utf8"));
  check(envelope);
  if (topic !== `${table}.${envelope.type}`) fail(`topic ${topic} carries ${envelope.type}`);
  if (position >= envelope.seq) fail(`position ${position} not before seq ${envelope.seq}`);
  if (envelope.seq <= last) continue;
  if (position === last) {
    deliver(envelope);
    continue;
  }
  await catchUp();
  if (envelope.seq > last) {
    if (position !== last) fail(`events ${last + 1}..${envelope.seq} on neither stream nor replay`);
    deliver(envelope);
  }
}
if (last !== lastWanted) fail(`delivered up to ${last}, the producer's last was ${lastWanted}`);
process.stdout.write(`${JSON.stringify({ delivered, validated, heartbeats, replayed })}\n`);
sub.close();
dealer.close();
process.exit(0);
