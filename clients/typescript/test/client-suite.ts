// The client's routes against the real service: a round trip, typed errors, key scopes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { InvalidInputError, JarvisMemory, NotFoundError, PermissionDeniedError } from "jarvis-memory-client";
import type { Live } from "./live.test.js";
import { SCOPE } from "./support/service.js";

export function clientTests(live: Live): void {
  const client = (key = live.service.serviceKey): JarvisMemory =>
    new JarvisMemory({ baseUrl: live.service.url, apiKey: key });

  test("what is remembered is recalled", async () => {
    const stored = await client().remember("ts-ada", "I moved to Lisbon in May", { memory_type: "fact" });
    assert.equal(stored.content, "I moved to Lisbon in May");
    assert.equal(stored.memory_type, "fact");
    const recalled = await client().recall("ts-ada", "Lisbon");
    assert.equal(recalled.results[0]?.memory.id, stored.id);
    assert.deepEqual(await client().getMemory("ts-ada", stored.id), { ...stored, merged: null });
  });

  test("iterMemories follows the cursor across pages", async () => {
    const items = ["tea", "coffee", "juice"].map((drink) => ({ content: `I drink ${drink} at breakfast` }));
    await client().rememberMany("ts-pages", items);
    const seen: string[] = [];
    for await (const memory of client().iterMemories("ts-pages", { order: "recent", limit: 2 })) {
      seen.push(memory.content);
    }
    assert.deepEqual(seen.sort(), items.map((item) => item.content).sort());
  });

  test("bad input is refused with a typed error naming the field", async () => {
    await assert.rejects(client().remember("ts-ada", "   "), (error: unknown) => {
      assert.ok(error instanceof InvalidInputError);
      assert.equal(error.status, 422);
      assert.equal(error.code, "invalid_input");
      assert.deepEqual(error.issues[0]?.loc, ["body", "content"]);
      return true;
    });
    await assert.rejects(client().getMemory("ts-ada", 987654), (error: unknown) => {
      assert.ok(error instanceof NotFoundError);
      assert.equal(error.code, "memory_not_found");
      return true;
    });
  });

  test("a key scoped to a prefix reaches its users and is refused the others", async () => {
    const scoped = client(live.service.scopedKey);
    const own = await scoped.remember(`${SCOPE}alice`, "I live in Porto");
    assert.equal(own.user_id, `${SCOPE}alice`);
    await assert.rejects(scoped.recall("globex:bob", "Porto"), (error: unknown) => {
      assert.ok(error instanceof PermissionDeniedError);
      assert.equal(error.status, 403);
      assert.equal(error.code, "forbidden");
      return true;
    });
  });
}
