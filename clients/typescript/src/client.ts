// The client: one method per /v1 route, named as in the Python client (camelCase).
import {
  type ChatCompletion,
  type ChatCompletionRequest,
  type ChatOptions,
  ChatStream,
  type ModelList,
  chatHeaders,
} from "./chat.js";
import { type Call, Transport } from "./transport.js";
import type {
  BatchResult,
  ChatMessage,
  CompressOptions,
  CompressResult,
  ContextOptions,
  ContextResult,
  Erased,
  EscalationOptions,
  Link,
  ListOptions,
  Memory,
  MemoryChanges,
  MemoryPage,
  NewMemory,
  RecallOptions,
  RecallResult,
  RememberOptions,
  ScoreOptions,
  ScoreResult,
  UsedResult,
} from "./types.js";

export const DEFAULT_URL = "http://127.0.0.1:8000";

export interface ClientOptions {
  /** Where the service listens (default http://127.0.0.1:8000), without /v1. */
  baseUrl?: string | undefined;
  /** A service key (/v1) or an admin key; none when the service runs without keys. */
  apiKey?: string | undefined;
  /** Milliseconds to wait for an answer (a stream's first bytes); default 30,000. */
  timeoutMs?: number | undefined;
  /** Retries after 503 `database_busy` (default 3), each after `Retry-After`. */
  maxRetries?: number | undefined;
  /** The longest wait before a retry, in seconds (default 30). */
  maxRetryWait?: number | undefined;
  /** Another fetch (a test's, a proxy agent's); default the global one. */
  fetch?: typeof fetch | undefined;
  /** Headers sent with every request. */
  headers?: Record<string, string> | undefined;
}

const user = (userId: string): string => `/v1/users/${encodeURIComponent(userId)}`;
const memories = (userId: string): string => `${user(userId)}/memories`;
const memory = (userId: string, memoryId: number): string => `${memories(userId)}/${memoryId}`;

/** A client of one jarvis-memory service. Errors reject with `JarvisMemoryError`
 * subclasses; 503 `database_busy` is retried up to `maxRetries` times. */
export class JarvisMemory {
  private readonly transport: Transport;

  constructor(options: ClientOptions = {}) {
    this.transport = new Transport({
      baseUrl: options.baseUrl ?? DEFAULT_URL,
      apiKey: options.apiKey,
      timeoutMs: options.timeoutMs ?? 30_000,
      retry: { maxRetries: options.maxRetries ?? 3, maxRetryWait: options.maxRetryWait ?? 30 },
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      headers: options.headers ?? {},
    });
  }

  private send<T>(call: Call): Promise<T> {
    return this.transport.json<T>(call);
  }

  // a user's memories

  /** Remember a statement; `merged` is true when it repeated a stored memory. */
  remember(userId: string, content: string, options: RememberOptions = {}): Promise<Memory> {
    return this.send({ method: "POST", path: memories(userId), body: { ...options, content } });
  }

  /** Remember up to 1,000 statements in order, all or nothing. */
  rememberMany(userId: string, items: NewMemory[]): Promise<BatchResult> {
    return this.send({ method: "POST", path: `${memories(userId)}/batch`, body: { items } });
  }

  /** A page of memories, most important (or newest) first. */
  listMemories(userId: string, options: ListOptions = {}): Promise<MemoryPage> {
    const { types, ...query } = options;
    return this.send({ method: "GET", path: memories(userId), query: { ...query, type: types } });
  }

  /** Every memory of the listing, following `next_cursor` page by page. */
  async *iterMemories(userId: string, options: Omit<ListOptions, "cursor"> = {}): AsyncGenerator<Memory> {
    let cursor: string | null = null;
    do {
      const page: MemoryPage = await this.listMemories(userId, cursor === null ? options : { ...options, cursor });
      yield* page.items;
      cursor = page.next_cursor;
    } while (cursor !== null);
  }

  /** One memory with its scores. */
  getMemory(userId: string, memoryId: number): Promise<Memory> {
    return this.send({ method: "GET", path: memory(userId, memoryId) });
  }

  /** Edit a memory; new content is re-analysed and rescored. */
  updateMemory(userId: string, memoryId: number, changes: MemoryChanges): Promise<Memory> {
    return this.send({ method: "PATCH", path: memory(userId, memoryId), body: changes });
  }

  /** Forget a memory and its links. */
  async forget(userId: string, memoryId: number): Promise<void> {
    await this.send<undefined>({ method: "DELETE", path: memory(userId, memoryId) });
  }

  /** Link two memories of the user; both gain impact. */
  link(userId: string, memoryId: number, targetId: number, options: { weight?: number } = {}): Promise<Link> {
    const body = { target_id: targetId, ...options };
    return this.send({ method: "POST", path: `${memory(userId, memoryId)}/links`, body });
  }

  /** Every link of a memory (topic and explicit). */
  links(userId: string, memoryId: number): Promise<Link[]> {
    return this.send({ method: "GET", path: `${memory(userId, memoryId)}/links` });
  }

  /** Mark a memory as replaced by the newer memory `by` (fact correction). */
  supersede(userId: string, memoryId: number, by: number): Promise<Memory> {
    return this.send({ method: "POST", path: `${memory(userId, memoryId)}/supersede`, body: { by } });
  }

  /** Undo a supersede. */
  restore(userId: string, memoryId: number): Promise<Memory> {
    return this.send({ method: "POST", path: `${memory(userId, memoryId)}/restore` });
  }

  // recall, escalations, context, messages

  /** The memories that matter most for `query`, best first. */
  recall(userId: string, query = "", options: RecallOptions = {}): Promise<RecallResult> {
    return this.send({ method: "POST", path: `${user(userId)}/recall`, body: { ...options, query } });
  }

  /** Say which recalled memories the answer used: each counts once (recall with
   * `track: false` first). An id not of this user refuses the whole call (404). */
  used(userId: string, ids: number[]): Promise<UsedResult> {
    return this.send({ method: "POST", path: `${memories(userId)}/used`, body: { ids } });
  }

  /** Memories that crossed into `high`. */
  escalations(userId: string, options: EscalationOptions = {}): Promise<Memory[]> {
    return this.send({ method: "GET", path: `${user(userId)}/escalations`, query: { ...options } });
  }

  /** Mark an escalation as followed up. */
  acknowledge(userId: string, memoryId: number): Promise<Memory> {
    return this.send({ method: "POST", path: `${user(userId)}/escalations/${memoryId}/ack` });
  }

  /** The messages to send within `budgetTokens`, the user's memories included. */
  context(
    userId: string,
    messages: ChatMessage[],
    budgetTokens: number,
    options: ContextOptions = {},
  ): Promise<ContextResult> {
    const body = { ...options, messages, budget_tokens: budgetTokens };
    return this.send({ method: "POST", path: `${user(userId)}/context`, body });
  }

  /** A 0-10 importance per message of the user's conversation. */
  scoreMessages(userId: string, messages: ChatMessage[], options: ScoreOptions = {}): Promise<ScoreResult> {
    const body = { ...options, messages };
    return this.send({ method: "POST", path: `${user(userId)}/messages/score`, body });
  }

  /** Keep what matters within a count or budget. */
  compressMessages(
    userId: string,
    messages: ChatMessage[],
    options: CompressOptions = {},
  ): Promise<CompressResult> {
    const body = { ...options, messages };
    return this.send({ method: "POST", path: `${user(userId)}/messages/compress`, body });
  }

  /** Erase a person: everything the service holds of them (idempotent). */
  eraseUser(userId: string): Promise<Erased> {
    return this.send({ method: "DELETE", path: user(userId) });
  }

  // the chat proxy (OpenAI's chat completions, with memory)

  /** A chat completion with the person's memories, answered whole. */
  chat(request: ChatCompletionRequest, options: ChatOptions = {}): Promise<ChatCompletion> {
    const body = { ...request, stream: false };
    return this.send(this.chatCall(body, options));
  }

  /** A streamed chat completion: `for await (const chunk of await client.streamChat(...))`.
   * Rejects (with the model server's error, typed) before any chunk when it refuses. */
  async streamChat(request: ChatCompletionRequest, options: ChatOptions = {}): Promise<ChatStream> {
    const call = this.chatCall({ ...request, stream: true }, options);
    const { response, close } = await this.transport.open(call, true);
    return new ChatStream(response, close);
  }

  /** The model server's models, as it lists them. */
  models(): Promise<ModelList> {
    return this.send({ method: "GET", path: "/v1/models" });
  }

  private chatCall(body: ChatCompletionRequest, options: ChatOptions): Call {
    const headers = chatHeaders(options);
    return { method: "POST", path: "/v1/chat/completions", body, headers, signal: options.signal };
  }

  // health

  /** The process is up. */
  healthz(): Promise<Record<string, unknown>> {
    return this.send({ method: "GET", path: "/healthz" });
  }

  /** The database answers and is migrated (`ServiceUnavailableError` if not). */
  readyz(): Promise<Record<string, unknown>> {
    return this.send({ method: "GET", path: "/readyz" });
  }
}
