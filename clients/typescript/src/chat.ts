// The chat proxy's OpenAI shapes. The service relays the model server's bodies as they
// come (its OpenAPI schema says only "an object"), so these name what OpenAI defines and
// keep every other field.
import { errorFromBody } from "./errors.js";
import { eventData } from "./sse.js";

/** A message as OpenAI's chat completions take it (images, tool calls pass through). */
export interface ChatCompletionMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content: string | null | Record<string, unknown>[];
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  [field: string]: unknown;
}

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
  [field: string]: unknown;
}

/** The body of `POST /v1/chat/completions`; `stream` is set by the method called. */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatCompletionMessage[];
  user?: string;
  max_tokens?: number;
  [field: string]: unknown;
}

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: {
    index: number;
    message: ChatCompletionMessage;
    finish_reason: string | null;
    [field: string]: unknown;
  }[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  [field: string]: unknown;
}

/** A streamed tool call's fragment: `index` says which call it extends. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: "function";
  function?: { name?: string; arguments?: string };
  [field: string]: unknown;
}

export interface ChatCompletionChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: {
    index: number;
    delta: { role?: string; content?: string | null; tool_calls?: ToolCallDelta[]; [field: string]: unknown };
    finish_reason: string | null;
    [field: string]: unknown;
  }[];
  [field: string]: unknown;
}

export interface ModelList {
  object: "list";
  data: { id: string; object: "model"; created: number; owned_by: string; [field: string]: unknown }[];
  [field: string]: unknown;
}

/** Whose memory and which conversation; sent as the proxy's headers. */
export interface ChatOptions {
  /** The person (`X-Jarvis-User`); else the body's `user`. */
  user?: string | undefined;
  /** The conversation the turn is remembered under (`X-Jarvis-Conversation`). */
  conversation?: string | undefined;
  /** false: forward as it is and remember nothing (`X-Jarvis-Memory: off`). */
  memory?: boolean | undefined;
  signal?: AbortSignal | undefined;
}

export function chatHeaders(options: ChatOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  if (options.user !== undefined) headers["X-Jarvis-User"] = options.user;
  if (options.conversation !== undefined) headers["X-Jarvis-Conversation"] = options.conversation;
  if (options.memory === false) headers["X-Jarvis-Memory"] = "off";
  return headers;
}

/** A streamed answer: its chunks as the model server sent them, by `for await`. An
 * error event in the stream throws the error it describes. Leaving the loop early
 * cancels the stream (the service stops the model server's answer). */
export class ChatStream implements AsyncIterable<ChatCompletionChunk> {
  /** The conversation the service remembers this turn under (null with memory off). */
  readonly conversation: string | null;

  constructor(
    readonly response: Response,
    private readonly close: () => void,
  ) {
    this.conversation = response.headers.get("X-Jarvis-Conversation");
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ChatCompletionChunk> {
    try {
      if (this.response.body === null) return;
      for await (const data of eventData(this.response.body)) {
        if (data === "[DONE]") return;
        const parsed = JSON.parse(data) as ChatCompletionChunk | { error: unknown };
        if ("error" in parsed) throw errorFromBody(this.response.status, parsed, this.response);
        yield parsed;
      }
    } finally {
      this.close();
    }
  }
}
