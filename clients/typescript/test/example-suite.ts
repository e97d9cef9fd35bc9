// examples/quickstart.ts, shown in the README, prints what the README says it prints.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Live } from "./live.test.js";

const PACKAGE = fileURLToPath(new URL("../../", import.meta.url)); // from build/test/

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
}
