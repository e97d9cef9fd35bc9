// ChatStream reads server-sent events however the bytes are cut: across chunks, inside
// a UTF-8 character, with CRLF line ends; an error event throws, typed; leaving early cancels.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatStream, JarvisMemoryError } from "jarvis-memory-client";

function chunk(content: string): string {
  const event = { id: "c", object: "chat.completion.chunk", created: 0, model: "m" };
  return JSON.stringify({ ...event, choices: [{ index: 0, delta: { content }, finish_reason: null }] });
}

/** A response whose body arrives in `parts`; `cancelled` says whether the reader gave up. */
function respond(parts: Uint8Array[]): { response: Response; cancelled: () => boolean } {
  let cancelled = false;
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const part = parts[next++];
      if (part === undefined) controller.close();
      else controller.enqueue(part);
    },
    cancel() {
      cancelled = true;
    },
  });
  const headers = { "Content-Type": "text/event-stream", "X-Jarvis-Conversation": "c-9" };
  return { response: new Response(body, { headers }), cancelled: () => cancelled };
}

async function contents(stream: ChatStream): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of stream) seen.push(event.choices[0]?.delta.content ?? "");
  return seen;
}

test("events cut anywhere are read whole, in order", async () => {
  const text = `: a comment\r\ndata: ${chunk("你好")}\r\n\r\ndata: ${chunk(" Ada")}\n\ndata: [DONE]\n\n`;
  const bytes = new TextEncoder().encode(text);
  // Every three bytes its own read: the Chinese characters (three bytes each) are split.
  const parts = Array.from({ length: Math.ceil(bytes.length / 3) }, (_, i) => bytes.slice(i * 3, i * 3 + 3));
  let closed = 0;
  const stream = new ChatStream(respond(parts).response, () => closed++);
  assert.equal(stream.conversation, "c-9");
  assert.deepEqual(await contents(stream), ["你好", " Ada"]);
  assert.equal(closed, 1);
});

test("an error event throws the error it names", async () => {
  const error = { error: { message: "Rate limit reached", type: "requests", code: "rate_limit" } };
  const text = `data: ${chunk("Hel")}\n\ndata: ${JSON.stringify(error)}\n\n`;
  const { response } = respond([new TextEncoder().encode(text)]);
  await assert.rejects(contents(new ChatStream(response, () => undefined)), (thrown: unknown) => {
    // The stream began with 200: the event says what failed, not a status.
    assert.ok(thrown instanceof JarvisMemoryError);
    assert.equal(thrown.status, 200);
    assert.equal(thrown.code, "rate_limit");
    assert.equal(thrown.message, "Rate limit reached");
    return true;
  });
});

test("leaving the loop early cancels the body", async () => {
  const encoder = new TextEncoder();
  const { response, cancelled } = respond([encoder.encode(`data: ${chunk("a")}\n\n`), encoder.encode(`data: ${chunk("b")}\n\n`)]);
  for await (const event of new ChatStream(response, () => undefined)) {
    assert.equal(event.choices[0]?.delta.content, "a");
    break;
  }
  assert.ok(cancelled());
});
