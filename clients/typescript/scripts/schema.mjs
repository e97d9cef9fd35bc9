// The service's OpenAPI document (openapi.json) and the types made from it (src/schema.d.ts).
//   node scripts/schema.mjs write   regenerate both from the app (api/app.py)
//   node scripts/schema.mjs check   fail when either differs from what the app gives now
// The document comes from scripts/openapi.py, run with the project's virtualenv
// ($JARVIS_PYTHON, else ../../.venv/bin/python).
// defaultNonNullable: false keeps request fields with a default optional (the service fills
// them); FastAPI lists every field of an answer as required, so answers stay exact.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const root = resolve(here, "../..");
const python = process.env.JARVIS_PYTHON ?? join(root, ".venv/bin/python");
const BANNER = "// Generated from openapi.json by `npm run schema` (openapi-typescript): do not edit.\n\n";

const document = execFileSync(python, [join(here, "scripts/openapi.py")], {
  cwd: root,
  encoding: "utf8",
  env: { ...process.env, PYTHONWARNINGS: "ignore" },
});
const types = BANNER + astToString(await openapiTS(JSON.parse(document), { defaultNonNullable: false }));
const files = { "openapi.json": document, "src/schema.d.ts": types };

if (process.argv[2] === "write") {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(here, name), text);
} else if (process.argv[2] === "check") {
  const stale = Object.entries(files)
    .filter(([name, text]) => readFileSync(join(here, name), "utf8") !== text)
    .map(([name]) => name);
  if (stale.length > 0) {
    console.error(`out of date with the app's OpenAPI document: ${stale.join(", ")}; run npm run schema`);
    process.exit(1);
  }
  console.log("openapi.json and src/schema.d.ts match the app");
} else {
  console.error("usage: node scripts/schema.mjs write|check");
  process.exit(2);
}
