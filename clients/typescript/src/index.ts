// jarvis-memory-client: a typed client of the jarvis-memory REST API.
export { JarvisMemory, DEFAULT_URL, type ClientOptions } from "./client.js";
export { ChatStream } from "./chat.js";
export type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessage,
  ChatCompletionRequest,
  ChatOptions,
  ModelList,
  ToolCall,
  ToolCallDelta,
} from "./chat.js";
export {
  AuthenticationError,
  ConflictError,
  DatabaseBusyError,
  InvalidInputError,
  JarvisMemoryError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  ServiceUnavailableError,
  type ValidationIssue,
} from "./errors.js";
export type * from "./types.js";
export type { components, operations, paths } from "./schema.js";
