// When to send a request again: only after 503 `database_busy` (nothing was written).
import { DatabaseBusyError, type JarvisMemoryError } from "./errors.js";

/** `maxRetries` more attempts after a busy answer, each after `Retry-After` seconds
 * (else 0.5, 1, 2... seconds), never longer than `maxRetryWait` seconds. */
export interface RetryPolicy {
  maxRetries: number;
  maxRetryWait: number;
}

/** Seconds to wait before attempt `attempt + 1`, or null to give up. */
export function retryWait(policy: RetryPolicy, error: JarvisMemoryError, attempt: number): number | null {
  if (!(error instanceof DatabaseBusyError) || attempt >= policy.maxRetries) return null;
  const seconds = error.retryAfter ?? 0.5 * 2 ** attempt;
  return Math.min(seconds, policy.maxRetryWait);
}

/** Resolve after `seconds`, or reject when `signal` aborts first. */
export function sleep(seconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, seconds * 1000);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
