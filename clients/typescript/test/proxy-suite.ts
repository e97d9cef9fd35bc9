// The chat proxy through the client and through the official `openai` package: the
// tokens arrive as the model server sent them, the turn is remembered, errors are typed.
import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";
import { JarvisMemory, PermissionDeniedError, RateLimitError } from "jarvis-memory-client";
import OpenAI from "openai";
import type { Live } from "./live.test.js";
import { MODEL, TOKENS } from "./support/upstream.js";

const HELLO = [{ role: "user" as const, content: "Hi, I am Ada and I moved to Lisbon" }];

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const value = await read();
    if (done(value) || attempt === 100) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function proxyTests(live: Live): void {
  const client = (key = live.service.serviceKey): JarvisMemory =>
    new JarvisMemory({ baseUrl: live.service.url, apiKey: key });

  beforeEach(() => {
    live.upstream.chats.length = 0;
    live.upstream.failWith = null;
  });

  test("streamChat yields the model server's chunks, token for token, and remembers the turn", async () => {
    const stream = await client().streamChat({ model: MODEL, messages: HELLO }, { user: "ts-proxy", conversation: "c-1" });
    assert.equal(stream.conversation, "c-1");
    const tokens: string[] = [];
    const finishes: (string | null)[] = [];
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) tokens.push(choice.delta.content);
      finishes.push(choice?.finish_reason ?? null);
    }
    assert.deepEqual(tokens, TOKENS);
    assert.equal(finishes.at(-1), "stop");
    assert.equal(live.upstream.chats[0]?.stream, true);
    const stored = await eventually(
      () => client().listMemories("ts-proxy"),
      (page) => page.items.length > 0,
    );
    assert.deepEqual(
      stored.items.map((m) => [m.content, m.conversation_id]),
      [[HELLO[0]?.content, "c-1"]],
    );
  });

  test("chat answers whole; models lists the model server's", async () => {
    const answer = await client().chat({ model: MODEL, messages: HELLO }, { user: "ts-proxy-whole" });
    assert.equal(answer.choices[0]?.message.content, TOKENS.join(""));
    assert.equal(live.upstream.chats[0]?.stream, false);
    assert.deepEqual(
      (await client().models()).data.map((m) => m.id),
      [MODEL],
    );
  });

  test("the official openai client streams through the service as the model server sent it", async () => {
    const openai = new OpenAI({
      baseURL: `${live.service.url}/v1`,
      apiKey: live.service.serviceKey,
      defaultHeaders: { "X-Jarvis-User": "ts-openai" },
      maxRetries: 0,
    });
    const stream = await openai.chat.completions.create({ model: MODEL, messages: HELLO, stream: true });
    const tokens: string[] = [];
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta.content;
      if (content) tokens.push(content);
    }
    assert.deepEqual(tokens, TOKENS);
    // The model server received the conversation with the person's memory context.
    const sent = live.upstream.chats[0]?.messages ?? [];
    assert.equal(sent.at(-1)?.content, HELLO[0]?.content);
  });

  test("the model server's 429 reaches the client typed, before any chunk", async () => {
    live.upstream.failWith = 429;
    await assert.rejects(client().streamChat({ model: MODEL, messages: HELLO }, { user: "ts-proxy-429" }), (error: unknown) => {
      assert.ok(error instanceof RateLimitError);
      assert.equal(error.status, 429);
      assert.equal(error.code, "rate_limit");
      assert.equal(error.message, "Rate limit reached");
      return true;
    });
  });

  test("a scoped key cannot name another prefix's person", async () => {
    const scoped = client(live.service.scopedKey);
    await assert.rejects(scoped.streamChat({ model: MODEL, messages: HELLO }, { user: "globex:bob" }), PermissionDeniedError);
    assert.equal(live.upstream.chats.length, 0);
  });
}
