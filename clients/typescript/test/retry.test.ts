// Retries after 503 database_busy honour Retry-After; other errors are not retried.
import assert from "node:assert/strict";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { DatabaseBusyError, JarvisMemory } from "jarvis-memory-client";

const BUSY = { error: { code: "database_busy", message: "the database was busy; nothing was written, retry" } };
const MEMORY_PAGE = { items: [], next_cursor: null };

/** Answers the first `busy` requests 503 database_busy with Retry-After: 1, then 200. */
let busy = 0;
const arrivals: number[] = [];
const server: Server = createServer((request, response) => {
  if (request.url?.startsWith("/hang")) return; // never answers: the time-out's test
  arrivals.push(performance.now());
  if (arrivals.length <= busy) {
    response.writeHead(503, { "Content-Type": "application/json", "Retry-After": "1" });
    response.end(JSON.stringify(BUSY));
  } else {
    response.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(MEMORY_PAGE));
  }
});
let baseUrl = "";

before(async () => {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  return new Promise((done) => server.close(done));
});

test("a busy answer is sent again after Retry-After", async () => {
  busy = 1;
  arrivals.length = 0;
  const page = await new JarvisMemory({ baseUrl }).listMemories("ada");
  assert.deepEqual(page, MEMORY_PAGE);
  assert.equal(arrivals.length, 2);
  const waited = (arrivals[1] ?? 0) - (arrivals[0] ?? 0);
  assert.ok(waited >= 950, `retried after ${waited} ms, not the 1 s Retry-After said`);
});

test("past maxRetries the busy error is thrown, typed, with its Retry-After", async () => {
  busy = 5;
  arrivals.length = 0;
  const client = new JarvisMemory({ baseUrl, maxRetries: 0 });
  await assert.rejects(client.listMemories("ada"), (error: unknown) => {
    assert.ok(error instanceof DatabaseBusyError);
    assert.equal(error.status, 503);
    assert.equal(error.code, "database_busy");
    assert.equal(error.retryAfter, 1);
    return true;
  });
  assert.equal(arrivals.length, 1);
});

test("maxRetryWait caps the wait", async () => {
  busy = 1;
  arrivals.length = 0;
  await new JarvisMemory({ baseUrl, maxRetryWait: 0.05 }).listMemories("ada");
  assert.equal(arrivals.length, 2);
  assert.ok((arrivals[1] ?? 0) - (arrivals[0] ?? 0) < 900);
});

test("no answer within timeoutMs rejects with a TimeoutError", async () => {
  const client = new JarvisMemory({ baseUrl: `${baseUrl}/hang`, timeoutMs: 100 });
  await assert.rejects(client.healthz(), { name: "TimeoutError" });
});
