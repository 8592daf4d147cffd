// A lossless consumer of one table's public stream, written from docs/streams.md and the JSON
// Schema alone. Usage:
//   node consumer.mjs STREAM REPLAY SERVER_KEY CLIENT_PUBLIC CLIENT_SECRET SCHEMA TABLE LAST_SEQ
// Prints one JSON line: {"delivered": [seq, ...], "validated": n} once LAST_SEQ is delivered, or
// exits 1 with the reason (a schema violation, a refused replay, or nothing for 10 s).
import { readFileSync } from "node:fs";
import * as zmq from "zeromq";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const [stream, replay, serverKey, clientPublic, clientSecret, schemaPath, table, lastArg] =
  process.argv.slice(2);
const lastWanted = Number(lastArg);
const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validateEnvelope = ajv.compile(schema.envelope);
const validateBody = Object.fromEntries(
  Object.entries(schema.events).map(([type, body]) => [type, ajv.compile(body)]),
);

let last = 0;
let validated = 0;
const delivered = [];

function fail(reason) {
  process.stderr.write(`${reason}\n`);
  process.exit(1);
}

function check(envelope) {
  if (!validateEnvelope(envelope)) fail(`envelope invalid: ${ajv.errorsText(validateEnvelope.errors)}`);
  const body = validateBody[envelope.type];
  if (!body) fail(`unknown event type ${envelope.type}`);
  if (!body(envelope.body)) fail(`${envelope.type} body invalid: ${ajv.errorsText(body.errors)}`);
  if (envelope.audience !== "public") fail(`restricted event ${envelope.seq} on the public stream`);
  validated += 1;
}

function deliver(envelope) {
  if (envelope.seq <= last) return;
  last = envelope.seq;
  delivered.push(envelope.seq);
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
    const events = frames.slice(1).map((f) => JSON.parse(f.toString()));
    for (const envelope of events) {
      check(envelope);
      deliver(envelope);
    }
    if (!header.more || events.length === 0) return;
  }
}

const sub = new zmq.Subscriber({ receiveTimeout: 10000, linger: 0 });
sub.connect(stream);
sub.subscribe(`${table}.`);
await catchUp();
while (last < lastWanted) {
  let frames;
  try {
    frames = await sub.receive();
  } catch (err) {
    fail(`no message for 10 s at seq ${last}: ${err}`);
  }
  const [topic, payload, positionFrame] = frames;
  const position = Number(positionFrame.toString());
  if (topic.toString() === `${table}.heartbeat`) {
    if (position > last) await catchUp();
    continue;
  }
  const envelope = JSON.parse(payload.toString());
  check(envelope);
  if (envelope.seq <= last) continue;
  if (position === last) {
    deliver(envelope);
    continue;
  }
  await catchUp();
  if (envelope.seq > last && position === last) deliver(envelope);
}
process.stdout.write(`${JSON.stringify({ delivered, validated })}\n`);
sub.close();
dealer.close();
process.exit(0);
