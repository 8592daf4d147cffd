// Validates JSON documents against one part of the JSON Schema (`studio schema`), set up as
// consumer.mjs sets up ajv. Usage: node validate.mjs SCHEMA PART < lines
// PART is "envelope" or "heartbeat"; each input line is one JSON document. Prints one line per
// input: "ok", or "invalid: " and ajv's errors.
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const [schemaPath, part] = process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
// As in consumer.mjs: ajv's discriminator takes no OpenAPI mapping and needs none.
if (schema[part].discriminator) delete schema[part].discriminator.mapping;
const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: true });
addFormats(ajv);
const validate = ajv.compile(schema[part]);
const lines = readFileSync(0, "utf8").split("\n").filter((line) => line.trim() !== "");
for (const line of lines) {
  const ok = validate(JSON.parse(line));
  process.stdout.write(ok ? "ok\n" : `invalid: ${ajv.errorsText(validate.errors)}\n`);
}
