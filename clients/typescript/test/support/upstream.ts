// A deterministic OpenAI-compatible model server on loopback, for the chat proxy's tests:
// it streams TOKENS one per event, or answers them whole, and records what it received.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";

export const TOKENS = ["Hello", ",", " Ada", "!", " 你好", "."];
export const MODEL = "upstream-model";
// The service's own LLM calls (message scoring, summaries) name this model; they are
// refused, so the service falls back to its rules and nothing else reaches the model.
export const INTERNAL_MODEL = "jarvis-internal";
export const ERROR_BODY = { error: { message: "Rate limit reached", type: "requests", code: "rate_limit" } };

export type ChatBody = { model?: string; stream?: boolean; messages?: { role: string; content: unknown }[] };

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const event = {
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    created: 0,
    model: MODEL,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(event)}\n\n`;
}

export const STREAM: string[] = [
  chunk({ role: "assistant", content: "" }),
  ...TOKENS.map((token) => chunk({ content: token })),
  chunk({}, "stop"),
  "data: [DONE]\n\n",
];

const COMPLETION = {
  id: "chatcmpl-test",
  object: "chat.completion",
  created: 0,
  model: MODEL,
  choices: [{ index: 0, message: { role: "assistant", content: TOKENS.join("") }, finish_reason: "stop" }],
  usage: { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 },
};

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<ChatBody> {
  const parts: Buffer[] = [];
  for await (const part of request) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString("utf8") || "{}") as ChatBody;
}

export class Upstream {
  /** The chat completions received (the service's own calls left out). */
  readonly chats: ChatBody[] = [];
  /** Answer chat completions with this status and ERROR_BODY instead (null: answer). */
  failWith: number | null = null;
  private readonly server: Server = createServer((request, response) => {
    void this.handle(request, response);
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method === "GET") return send(response, 200, { object: "list", data: [model()] });
    const body = await readJson(request);
    if (body.model === INTERNAL_MODEL) return send(response, 500, { error: { message: "not for the service" } });
    this.chats.push(body);
    if (this.failWith !== null) return send(response, this.failWith, ERROR_BODY);
    if (!body.stream) return send(response, 200, COMPLETION);
    response.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
    response.socket?.setNoDelay(true);
    for (const event of STREAM) {
      response.write(event);
      await new Promise((resolve) => setTimeout(resolve, 5)); // each event its own read
    }
    response.end();
  }
}

function model(): Record<string, unknown> {
  return { id: MODEL, object: "model", created: 0, owned_by: "test" };
}
