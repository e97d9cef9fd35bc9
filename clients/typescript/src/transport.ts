// Sending one request: the base URL, the key, JSON bodies, the time-out, and retries
// after 503 `database_busy` honouring `Retry-After`.
import { errorFrom } from "./errors.js";
import { type RetryPolicy, retryWait, sleep } from "./retry.js";

export type Query = Record<string, string | number | boolean | string[] | undefined>;

/** One request; what it answers is read by the caller. */
export interface Call {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
  query?: Query;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string | undefined;
  timeoutMs: number;
  retry: RetryPolicy;
  fetch: typeof fetch;
  headers: Record<string, string>;
}

/** A request's signal: aborted by the caller's, or by the time-out (until `settle`). */
class Deadline {
  readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly abort = (): void => this.controller.abort(this.outer?.reason);

  constructor(
    timeoutMs: number,
    private readonly outer?: AbortSignal,
  ) {
    if (outer?.aborted) this.abort();
    else outer?.addEventListener("abort", this.abort, { once: true });
    this.timer = setTimeout(() => {
      this.controller.abort(new DOMException(`no answer within ${timeoutMs} ms`, "TimeoutError"));
    }, timeoutMs);
  }

  /** The answer arrived (whole, or a stream's headers): the time-out no longer applies. */
  settle(): void {
    clearTimeout(this.timer);
  }

  /** The body was read (or given up): the caller's signal no longer applies either. */
  close(): void {
    this.settle();
    this.outer?.removeEventListener("abort", this.abort);
  }
}

function url(base: string, path: string, query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(name, String(item));
  }
  const search = params.toString();
  return `${base.replace(/\/+$/, "")}${path}${search ? `?${search}` : ""}`;
}

export class Transport {
  constructor(private readonly options: TransportOptions) {}

  /** The successful answer of `call` (retried while the database is busy); its body is
   * unread; `close` once it is read. `stream`: the time-out covers the headers only. */
  async open(call: Call, stream = false): Promise<{ response: Response; close: () => void }> {
    for (let attempt = 0; ; attempt++) {
      const deadline = new Deadline(this.options.timeoutMs, call.signal);
      const close = (): void => deadline.close();
      let response: Response;
      try {
        response = await this.options.fetch(url(this.options.baseUrl, call.path, call.query), {
          method: call.method,
          headers: this.headers(call),
          body: call.body === undefined ? null : JSON.stringify(call.body),
          signal: deadline.controller.signal,
        });
      } catch (error) {
        close();
        throw error;
      }
      if (stream) deadline.settle();
      if (response.ok) return { response, close };
      const error = await errorFrom(response).finally(close);
      const wait = retryWait(this.options.retry, error, attempt);
      if (wait === null) throw error;
      await sleep(wait, call.signal);
    }
  }

  /** The JSON body of `call`'s answer (undefined for 204). */
  async json<T>(call: Call): Promise<T> {
    const { response, close } = await this.open(call);
    try {
      return (response.status === 204 ? undefined : await response.json()) as T;
    } finally {
      close();
    }
  }

  private headers(call: Call): Record<string, string> {
    const headers: Record<string, string> = { Accept: "application/json", ...this.options.headers };
    if (this.options.apiKey) headers.Authorization = `Bearer ${this.options.apiKey}`;
    if (call.body !== undefined) headers["Content-Type"] = "application/json";
    return { ...headers, ...call.headers };
  }
}
