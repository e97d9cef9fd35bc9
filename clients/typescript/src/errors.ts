// Typed errors from the service's one error shape, {"error": {code, message, details?}}.
// The chat proxy relays a model server's own errors ({"error": {message, type, code}}),
// which read the same way.

/** One refused field of a 422 `invalid_input` (its `details`). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type?: string;
}

/** An error answer of the service: its HTTP status, `code`, `message` and `details`. */
export class JarvisMemoryError extends Error {
  override name = "JarvisMemoryError";

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = undefined,
    readonly response: Response | undefined = undefined,
  ) {
    super(message);
  }
}

/** 401: no key, or a key the service does not know. */
export class AuthenticationError extends JarvisMemoryError {
  override name = "AuthenticationError";
}

/** 403: a key bound to other users, a service key on an admin route. */
export class PermissionDeniedError extends JarvisMemoryError {
  override name = "PermissionDeniedError";
}

/** 404: no such memory for this user (or no such route). */
export class NotFoundError extends JarvisMemoryError {
  override name = "NotFoundError";
}

/** 409: the request contradicts the stored state (`supersede_cycle`...). */
export class ConflictError extends JarvisMemoryError {
  override name = "ConflictError";
}

/** 422 `invalid_input` (and the proxy's `user_required`): `issues` lists refused fields. */
export class InvalidInputError extends JarvisMemoryError {
  override name = "InvalidInputError";

  get issues(): ValidationIssue[] {
    return Array.isArray(this.details) ? (this.details as ValidationIssue[]) : [];
  }
}

/** 429: the model server behind the chat proxy limits the rate. */
export class RateLimitError extends JarvisMemoryError {
  override name = "RateLimitError";
}

/** 503 `database_busy`: nothing was written; the client retries (`maxRetries`). */
export class DatabaseBusyError extends JarvisMemoryError {
  override name = "DatabaseBusyError";

  constructor(
    status: number,
    code: string,
    message: string,
    details: unknown,
    response: Response | undefined,
    /** `Retry-After` in seconds, or null when the answer had none. */
    readonly retryAfter: number | null,
  ) {
    super(status, code, message, details, response);
  }
}

/** 503 other than contention, e.g. `not_ready` or `llm_not_configured`. */
export class ServiceUnavailableError extends JarvisMemoryError {
  override name = "ServiceUnavailableError";
}

/** 500 `internal_error` and any other 5xx (502, 504 from the proxy). */
export class ServerError extends JarvisMemoryError {
  override name = "ServerError";
}

type ErrorClass = new (...args: ConstructorParameters<typeof JarvisMemoryError>) => JarvisMemoryError;

const BY_STATUS: Record<number, ErrorClass> = {
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: InvalidInputError,
  429: RateLimitError,
};

/** `Retry-After` in seconds (the service sends a number of seconds), else null. */
export function retryAfter(response: Response): number | null {
  const value = response.headers.get("Retry-After");
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

function field(body: Record<string, unknown>, name: string): string | null {
  const value = body[name];
  return typeof value === "string" || typeof value === "number" ? String(value) : null;
}

/** The error an `{"error": ...}` body (or a stream's error event) describes. */
export function errorFromBody(status: number, data: unknown, response?: Response): JarvisMemoryError {
  let code = "http_error";
  let message = response?.statusText || `HTTP ${status}`;
  let details: unknown;
  const error = typeof data === "object" && data !== null ? (data as { error?: unknown }).error : undefined;
  if (typeof error === "object" && error !== null) {
    const body = error as Record<string, unknown>;
    code = field(body, "code") ?? field(body, "type") ?? code;
    message = field(body, "message") ?? message;
    details = body.details;
  }
  if (status === 503 && code === "database_busy") {
    const wait = response === undefined ? null : retryAfter(response);
    return new DatabaseBusyError(status, code, message, details, response, wait);
  }
  const kind = status === 503 ? ServiceUnavailableError : (BY_STATUS[status] ?? (status >= 500 ? ServerError : JarvisMemoryError));
  return new kind(status, code, message, details, response);
}

/** The typed error of an error answer (4xx or 5xx); reads its body. */
export async function errorFrom(response: Response): Promise<JarvisMemoryError> {
  const text = await response.text();
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined; // not the service's shape (a proxy in between): the status says what it can
  }
  return errorFromBody(response.status, data, response);
}
