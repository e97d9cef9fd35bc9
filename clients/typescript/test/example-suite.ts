// examples/quickstart.ts, shown in the README, prints what the README says it prints.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Live } from "./live.test.js";

const PACKAGE = fileURLToPath(new URL("../../", import.meta.url)); // from build/test/
const MARKER = "<!-- ts-client-example -->\n```ts\n";

export const EXPECTED = ["fact: I moved to Lisbon in May", "404 memory_not_found", ""].join("\n");

export function exampleTests(live: Live): void {
  test("the quickstart prints the recalled memory and a typed error", async () => {
    const env = { ...process.env, JARVIS_URL: live.service.url, JARVIS_API_KEY: live.service.serviceKey };
    const script = `${PACKAGE}build/examples/quickstart.js`;
    const { stdout } = await promisify(execFile)(process.execPath, [script], { env });
    assert.equal(stdout, EXPECTED);
  });

  test("the README shows the quickstart as it is, and its output", async () => {
    const readme = await readFile(`${PACKAGE}README.md`, "utf8");
    const source = await readFile(`${PACKAGE}examples/quickstart.ts`, "utf8");
    assert.ok(readme.includes(source), "README.md does not show examples/quickstart.ts as it is");
    assert.ok(readme.includes(EXPECTED), "README.md does not show the quickstart's output");
  });

  test("the project README shows lines of the quickstart, in its order", async () => {
    const readme = await readFile(`${PACKAGE}../../README.md`, "utf8");
    // The shorter example leaves out the typed error, and so its import.
    const quickstart = await readFile(`${PACKAGE}examples/quickstart.ts`, "utf8");
    const source = quickstart.replace(", NotFoundError", "").split("\n");
    const start = readme.indexOf(MARKER);
    assert.ok(start >= 0, `README.md has no ${MARKER.trim()} block`);
    const shown = readme.slice(start + MARKER.length, readme.indexOf("```", start + MARKER.length)).split("\n");
    let at = 0;
    for (const line of shown.filter((text) => text.trim() !== "")) {
      const found = source.findIndex((text, index) => index >= at && text === line);
      assert.ok(found >= 0, `not a line of examples/quickstart.ts (in order): ${line}`);
      at = found + 1;
    }
    assert.ok(readme.includes(`prints \`${EXPECTED.split("\n")[0]}\``));
  });
}
