// The service's request and answer bodies, named after the Python client's types and
// taken from the generated OpenAPI types (src/schema.d.ts).
import type { components } from "./schema.js";

type Schemas = components["schemas"];

export type Memory = Schemas["MemoryOut"];
export type MemoryType = Memory["memory_type"];
export type Level = Memory["importance_level"];
export type Order = "importance" | "recent";
export type NewMemory = Schemas["MemoryIn"];
export type RememberOptions = Omit<NewMemory, "content">;
export type MemoryChanges = Schemas["MemoryPatch"];
export type MemoryPage = Schemas["MemoryPageOut"];
export type BatchResult = Schemas["BatchOut"];
export type Link = Schemas["LinkOut"];
export type RecallRequest = Schemas["RecallIn"];
export type RecallOptions = Omit<RecallRequest, "query">;
export type RecallResult = Schemas["RecallOut"];
export type RecallHit = Schemas["RecallHitOut"];
export type UsedResult = Schemas["UsedOut"];
export type ChatMessage = Schemas["ChatMessageIn"];
export type ContextRequest = Schemas["ContextIn"];
export type ContextOptions = Omit<ContextRequest, "messages" | "budget_tokens">;
export type ContextResult = Schemas["ContextOut"];
export type ScoreRequest = Schemas["ScoreMessagesIn"];
export type ScoreOptions = Omit<ScoreRequest, "messages">;
export type ScoreResult = Schemas["api__schemas__messages__ScoresOut"];
export type CompressRequest = Schemas["CompressMessagesIn"];
export type CompressOptions = Omit<CompressRequest, "messages">;
export type CompressResult = Schemas["CompressOut"];
export type Erased = Schemas["ErasedOut"];
export type ErrorBody = Schemas["ErrorBody"];

/** The query of a memory listing (`GET /v1/users/{id}/memories`). */
export interface ListOptions {
  order?: Order | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
  types?: MemoryType[] | undefined;
  level?: Level | undefined;
  include_superseded?: boolean | undefined;
}

/** The query of `GET /v1/users/{id}/escalations`. */
export interface EscalationOptions {
  include_acknowledged?: boolean | undefined;
  include_superseded?: boolean | undefined;
}
