// Generated from openapi.json by `npm run schema` (openapi-typescript): do not edit.

export interface paths {
    "/v1/users/{user_id}/memories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Memories
         * @description A page of memories, most important (``order=importance``) or newest first.
         */
        get: operations["list_memories_v1_users__user_id__memories_get"];
        put?: never;
        /**
         * Create Memory
         * @description Remember a statement. Saying the same thing again merges (200, ``merged: true``).
         */
        post: operations["create_memory_v1_users__user_id__memories_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}/memories/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create Memories
         * @description Remember up to 1,000 statements in order, all or nothing.
         */
        post: operations["create_memories_v1_users__user_id__memories_batch_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}/memories/{memory_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Memory
         * @description One memory with its scores.
         */
        get: operations["get_memory_v1_users__user_id__memories__memory_id__get"];
        put?: never;
        post?: never;
        /**
         * Delete Memory
         * @description Forget a memory and its links.
         */
        delete: operations["delete_memory_v1_users__user_id__memories__memory_id__delete"];
        options?: never;
        head?: never;
        /**
         * Update Memory
         * @description Edit a memory; new content is re-analysed and rescored.
         */
        patch: operations["update_memory_v1_users__user_id__memories__memory_id__patch"];
        trace?: never;
    };
    "/v1/users/{user_id}/memories/{memory_id}/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List Links
         * @description Every link of one memory (topic and explicit).
         */
        get: operations["list_links_v1_users__user_id__memories__memory_id__links_get"];
        put?: never;
        /**
         * Link Memories
         * @description Link two memories of the same user; both gain impact.
         */
        post: operations["link_memories_v1_users__user_id__memories__memory_id__links_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}/memories/{memory_id}/supersede": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Supersede Memory
         * @description Mark this memory as replaced by the newer memory ``by`` (fact correction).
         *
         *     It stays stored (admin, ``include_superseded``) but leaves recall and the default
         *     listing. 404 when either memory is not this user's; 422 ``invalid_input`` for itself;
         *     409 ``supersede_cycle`` when ``by`` is (indirectly) superseded by this memory.
         */
        post: operations["supersede_memory_v1_users__user_id__memories__memory_id__supersede_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}/memories/{memory_id}/restore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Restore Memory
         * @description Undo a supersede: the memory is current again (409 ``not_superseded`` if it was).
         */
        post: operations["restore_memory_v1_users__user_id__memories__memory_id__restore_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}/recall": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Recall
         * @description The memories that matter most for ``query``, best first.
         *
         *     Ranked by named signals (lexical, phrase, importance, temporal, recency, session
         *     continuity, semantic) fused with weights for the query's type (see settings), then
         *     MMR for variety. ``explain`` adds the query type and every signal's and component's
         *     contribution; ``track=false`` leaves the recall counts alone. Memories a newer fact
         *     superseded are left out unless ``include_superseded`` (they carry ``superseded_by_id``);
         *     left out, the best of those matching the query lend their score to the memory that
         *     replaced them (``explain``: ``relevance.superseded_match``).
         *
         *     Only hits with query-dependent evidence come back for a non-empty query (words,
         *     phrase, time, urgency/feeling or semantic similarity of their own, or a neighbour in
         *     the same conversation as such a hit: ``evidence.context_of``), and none below
         *     ``min_confidence``: the answer may hold fewer than ``top_k`` results, or none. Each
         *     has a calibrated ``confidence``; ``sufficient`` and ``coverage`` say whether private
         *     memory is enough to answer (seed 001 §1.2).
         *
         *     ``track`` (default true) counts (recall_count + 1, rescored) only the hits with
         *     evidence of their own and confidence at least RECALL_COUNT_MIN_CONFIDENCE
         *     (``counted``). A frontend that knows which memories its answer used should recall
         *     with ``track: false`` and report them to ``POST …/memories/used`` instead.
         *
         *     Ranked in a read-only transaction, counted in a short one of its own
         *     (services/recall/tracked.py), so recalls do not queue for SQLite's write lock.
         */
        post: operations["recall_v1_users__user_id__recall_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}/memories/used": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Used
         * @description Say which recalled memories the answer actually used: each counts as recalled
         *     once (recall_count + 1, rescored, which may escalate it), however often it is named.
         *     All or nothing: an id that is not one of this user's memories (another user's looks
         *     the same) refuses the call with 404 ``memory_not_found`` naming them, and nothing is
         *     counted. Use it with recalls made with ``track: false``; with ``track`` on, the
         *     confident hits were counted already.
         */
        post: operations["used_v1_users__user_id__memories_used_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}/escalations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Escalations
         * @description Memories that crossed into ``high`` ("you mentioned this three times"); superseded
         *     ones (a newer fact replaced them) only with ``include_superseded``.
         */
        get: operations["escalations_v1_users__user_id__escalations_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}/escalations/{memory_id}/ack": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Acknowledge
         * @description Mark an escalation as followed up.
         */
        post: operations["acknowledge_v1_users__user_id__escalations__memory_id__ack_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}/messages/score": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Score Messages
         * @description A 0-10 importance per message with its five dimensions, confidence and method.
         */
        post: operations["score_messages_v1_users__user_id__messages_score_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}/messages/compress": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Compress Messages
         * @description Keep system messages, the most recent ``preserve_recent``, then the best-scored
         *     messages that fit ``target_count`` and/or ``budget_tokens``; order is preserved.
         */
        post: operations["compress_messages_v1_users__user_id__messages_compress_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Assemble Context
         * @description The final message list within ``budget_tokens``: system messages, the rolling
         *     summary (if the history needed one), the kept history, and a ``memory_context`` block of
         *     the user's relevant memories just before the last user message.
         */
        post: operations["assemble_context_v1_users__user_id__context_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get Person
         * @description A person's settings: ``time_zone``, the IANA zone their days are counted in
         *     ("yesterday" in a recall, a memory's date in a context), null for UTC. Someone the
         *     service has not met has the defaults.
         */
        get: operations["get_person_v1_users__user_id__get"];
        put?: never;
        post?: never;
        /**
         * Erase User
         * @description Erase a person: their memories and everything derived from them (vectors, index
         *     and term statistics, links, score history), their conversations' message scores and
         *     compressions, their job runs, their row, and the API keys bound to exactly them, in
         *     one transaction. Idempotent: a second call answers 200 with every count 0. Scoped
         *     like every route: a ``prefix:`` key erases only users it reaches (403 otherwise).
         *     Deleted rows of PostgreSQL stay in its files until VACUUM (docs/api.md).
         */
        delete: operations["erase_user_v1_users__user_id__delete"];
        options?: never;
        head?: never;
        /**
         * Patch Person
         * @description Change a person's settings: ``time_zone`` (an IANA name this server's zone
         *     database knows, else 422 ``invalid_input``; null: back to UTC). An omitted field
         *     stays as it is.
         */
        patch: operations["patch_person_v1_users__user_id__patch"];
        trace?: never;
    };
    "/v1/users/{user_id}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export User
         * @description Export a person: every memory with its text, type, role, metadata, conversation,
         *     times, counts, emotion tags, topics, scores and their components, score history,
         *     fact slot and supersession, and vector; the links between them; their message scores
         *     and compressions. Streamed as JSON Lines from one snapshot of the database. The last
         *     line (``kind: end``) counts the others: a stream that broke off has none, and an
         *     import refuses it. Someone the service does not know gets an export holding nothing.
         *     Scoped like every route (a ``prefix:`` key exports only users it reaches).
         */
        get: operations["export_user_v1_users__user_id__export_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{user_id}/import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import User
         * @description Import an export as this person's data, all or nothing: 422 ``invalid_export``
         *     (with the line at fault) for a document that is not a whole export of this format
         *     version, 409 ``user_not_empty`` for a person who already has memories; either way
         *     nothing is written; 413 ``too_large`` for a body over IMPORT_MAX_BYTES (import it with
         *     ``jarvis-memory users import`` instead). The memories keep their times, counts and
         *     scores; the search index is rebuilt from their texts. The user id may differ from the
         *     exported one.
         */
        post: operations["import_user_v1_users__user_id__import_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chat/completions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Chat Completions
         * @description OpenAI's chat completions, with memory (docs/chat-proxy.md).
         *
         *     The body goes to the configured model server (``LLM_BASE_URL``) as OpenAI defines it;
         *     fields the service does not know (tools, images, anything) pass through untouched, and
         *     the answer (a server-sent event stream with ``stream: true``) comes back as the model
         *     server sent it, its errors included.
         *
         *     The person is the ``X-Jarvis-User`` header, else Open WebUI's ``X-OpenWebUI-User-Id``,
         *     else the body's ``user``; the key must reach them. Their memories for the conversation
         *     are assembled in as ``POST /v1/users/{id}/context`` does, within the model's context
         *     window (PROXY_CONTEXT_TOKENS, PROXY_MODEL_CONTEXT_TOKENS) less ``max_tokens``. After a
         *     whole answer, the person's new turn (the last message, when it is theirs) is remembered
         *     under the conversation: the ``X-Jarvis-Conversation`` header, else the frontend's own
         *     (Open WebUI's ``X-OpenWebUI-Chat-Id``, the body's ``metadata.conversation_id`` or
         *     ``chat_id``), else one derived from the first user message; the answer's
         *     ``X-Jarvis-Conversation`` header says which. Nothing is remembered when the model server
         *     fails. ``X-Jarvis-Memory: off`` forwards the request as it is and remembers nothing.
         */
        post: operations["chat_completions_v1_chat_completions_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Models
         * @description The model server's ``/models``, as it answers (any key may ask).
         */
        get: operations["models_v1_models_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Users
         * @description Users with their memory counts and importance-level distribution.
         */
        get: operations["users_admin_users_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/users/{user_id}/memories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * User Memories
         * @description A user's memories with every score component (``scores``), superseded ones too
         *     (with ``superseded_by_id``: the admin sees the whole history).
         */
        get: operations["user_memories_admin_users__user_id__memories_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/memories/{memory_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Memory
         * @description One memory: components, weighted contributions, links and score history.
         */
        get: operations["memory_admin_memories__memory_id__get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Jobs
         * @description Rescoring runs, newest first.
         */
        get: operations["jobs_admin_jobs_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/jobs/rescore": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rescore Now
         * @description Run rescoring now (everyone, or one user) and return the finished run.
         */
        post: operations["rescore_now_admin_jobs_rescore_post"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stats
         * @description Service-wide totals: users, memories, levels, recalls, the last rescoring run, the
         *     last embedding run and (with embeddings configured) the vectors still to make.
         */
        get: operations["stats_admin_stats_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/users/{user_id}/conversations/{conversation_id}/message-scores": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Message Scores
         * @description Scores in message order with their dimensions, method and time; ``after`` pages.
         */
        get: operations["message_scores_admin_users__user_id__conversations__conversation_id__message_scores_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/admin/users/{user_id}/conversations/{conversation_id}/compressions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Compressions
         * @description Compression runs of the conversation, newest first.
         */
        get: operations["compressions_admin_users__user_id__conversations__conversation_id__compressions_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Healthz
         * @description The process is up (touches nothing else; answers while the model loads).
         */
        get: operations["healthz_healthz_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readyz
         * @description The database answers and its schema is at the migrations' head, and a configured
         *     embedding model has loaded (``embedding``: ``loading``, ``ready``, ``unavailable``
         *     when it could not be loaded and recall goes on without it, ``off`` when none is
         *     configured).
         */
        get: operations["readyz_readyz_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Metrics
         * @description Prometheus metrics of this process (an admin key when auth is on).
         */
        get: operations["metrics_metrics_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * AdminMemoryOut
         * @description One memory with its full score breakdown, links and history.
         */
        AdminMemoryOut: {
            memory: components["schemas"]["MemoryOut"];
            /** Contributions */
            contributions: {
                [key: string]: number;
            };
            /** Links */
            links: components["schemas"]["LinkOut"][];
            /** History */
            history: components["schemas"]["HistoryOut"][];
        };
        /**
         * AdminUserOut
         * @description A user with counts and the distribution of importance levels.
         */
        AdminUserOut: {
            /** User Id */
            user_id: string;
            /** Memory Count */
            memory_count: number;
            /** Levels */
            levels: {
                [key: string]: number;
            };
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
        };
        /**
         * AdminUsersOut
         * @description A page of users.
         */
        AdminUsersOut: {
            /** Items */
            items: components["schemas"]["AdminUserOut"][];
            /** Next Cursor */
            next_cursor: string | null;
        };
        /**
         * BatchOut
         * @description One result per input item, in order.
         */
        BatchOut: {
            /** Items */
            items: components["schemas"]["MemoryOut"][];
            /** Created */
            created: number;
            /** Merged */
            merged: number;
        };
        /**
         * CardOut
         * @description A memory card saved (or merged into an existing memory).
         */
        CardOut: {
            /** Memory Id */
            memory_id: number;
            /** Merged */
            merged: boolean;
        };
        /**
         * ChatMessageIn
         * @description One chat message in the OpenAI chat-completions shape.
         */
        ChatMessageIn: {
            /**
             * Role
             * @enum {string}
             */
            role: "system" | "developer" | "user" | "assistant" | "tool";
            /** Content */
            content: string;
            /** Name */
            name?: string | null;
            /** Id */
            id?: string | null;
            /** Timestamp */
            timestamp?: number | null;
            /**
             * Topic Change
             * @description this message starts a new topic: the window before it is summarised (context)
             * @default false
             */
            topic_change?: boolean;
            /**
             * Phase
             * @description the phase of work the message belongs to (compress)
             */
            phase?: string | null;
        };
        /**
         * CompressMessagesIn
         * @description Messages to compress to a target count and/or a token budget (one is needed).
         */
        CompressMessagesIn: {
            /** Messages */
            messages: components["schemas"]["ChatMessageIn"][];
            /**
             * Task Context
             * @default
             */
            task_context?: string;
            /**
             * Task Type
             * @description default, refactor, debugging, requirements (or 代码重构 …)
             */
            task_type?: ("default" | "refactor" | "debugging" | "requirements" | "代码重构" | "重构" | "bug调试" | "调试" | "debug" | "需求分析" | "requirements_analysis" | "默认") | null;
            /**
             * Conversation Id
             * @description persist the scores (and reuse LLM answers) under this id
             */
            conversation_id?: string | null;
            /**
             * Background
             * @description with an LLM: answer with rule scores now, let the LLM score the uncertain messages afterwards for the next request (default MESSAGE_SCORE_BACKGROUND)
             */
            background?: boolean | null;
            /**
             * Current Phase
             * @description the phase of work in progress: named in the LLM's prompt; in compress, messages of earlier phases are condensed (seed 000)
             */
            current_phase?: string | null;
            /** Target Count */
            target_count?: number | null;
            /** Budget Tokens */
            budget_tokens?: number | null;
            /** Preserve Recent */
            preserve_recent?: number | null;
        } | unknown | unknown;
        /**
         * CompressOut
         * @description The kept messages in their order, what was dropped, and the rate (kept / all).
         */
        CompressOut: {
            /** Messages */
            messages: {
                [key: string]: unknown;
            }[];
            /** Kept */
            kept: number[];
            /** Dropped */
            dropped: components["schemas"]["DroppedOut"][];
            /** Compression Rate */
            compression_rate: number;
            /** Original Tokens */
            original_tokens: number;
            /** Kept Tokens */
            kept_tokens: number;
            /**
             * Target Exceeded By
             * @description messages kept beyond target_count because preserve_recent forces them
             */
            target_exceeded_by: number;
            /**
             * Pending
             * @description messages the LLM scores in the background, for the next request
             */
            pending: number[];
            /**
             * Phases
             * @description earlier phases condensed: their best messages kept, the rest in a phase_summary message placed after them
             */
            phases: components["schemas"]["PhaseOut"][];
            /**
             * Note
             * @description why the target was exceeded, if it was
             */
            note?: string | null;
        };
        /**
         * CompressionOut
         * @description One recorded compression.
         */
        CompressionOut: {
            /** Id */
            id: number;
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /** From Count */
            from_count: number;
            /** To Count */
            to_count: number;
            /** From Tokens */
            from_tokens: number;
            /** To Tokens */
            to_tokens: number;
            /** Compression Rate */
            compression_rate: number;
            /** Target Count */
            target_count: number | null;
            /** Budget Tokens */
            budget_tokens: number | null;
            /** Preserve Recent */
            preserve_recent: number;
            /** Kept */
            kept: number[];
            /** Dropped */
            dropped: number[];
        };
        /**
         * ContextIn
         * @description The conversation so far, the budget, and what the memories should be about.
         */
        ContextIn: {
            /** Messages */
            messages: components["schemas"]["ChatMessageIn"][];
            /** Budget Tokens */
            budget_tokens: number;
            /**
             * Query
             * @description what to recall memories for; default: the last user message
             */
            query?: string | null;
            /**
             * Task Context
             * @default
             */
            task_context?: string;
            /** Task Type */
            task_type?: ("default" | "refactor" | "debugging" | "requirements" | "代码重构" | "重构" | "bug调试" | "调试" | "debug" | "需求分析" | "requirements_analysis" | "默认") | null;
            /**
             * Preserve Recent
             * @description newest messages always kept verbatim (CONTEXT_PRESERVE_RECENT)
             */
            preserve_recent?: number | null;
            /**
             * Extract Cards
             * @description save memory cards from a new summary (CONTEXT_MEMORY_CARDS)
             */
            extract_cards?: boolean | null;
            /**
             * Conversation Id
             * @description the memory cards' source
             */
            conversation_id?: string | null;
            /**
             * Enable Memory Injection
             * @description inject the user's memories (CONTEXT_MEMORY_INJECTION)
             */
            enable_memory_injection?: boolean | null;
            /**
             * Memory Top K
             * @description memories recalled for the block (CONTEXT_MEMORY_TOP_K)
             */
            memory_top_k?: number | null;
            /**
             * Memory Max Tokens
             * @description most tokens of the memory block (CONTEXT_MEMORY_MAX_TOKENS)
             */
            memory_max_tokens?: number | null;
            /**
             * Cursor
             * @description next_cursor of an earlier answer for the same query: recall memory_top_k more memories
             */
            cursor?: string | null;
            /**
             * Current Phase
             * @description the phase of work in progress, named in the LLM's prompt
             */
            current_phase?: string | null;
            /**
             * Summarize Memories
             * @description the memory block as a 200-character summary of the recalled memories (true) or their lines (false); default CONTEXT_MEMORY_SUMMARY
             */
            summarize_memories?: boolean | null;
        };
        /**
         * ContextOut
         * @description The message list to send, what went in and out, and what it cost.
         */
        ContextOut: {
            /** Messages */
            messages: {
                [key: string]: unknown;
            }[];
            /** Memories */
            memories: components["schemas"]["InjectedMemoryOut"][];
            /** Dropped */
            dropped: components["schemas"]["DroppedMessageOut"][];
            /** Dropped Memories */
            dropped_memories: components["schemas"]["DroppedMemoryOut"][];
            /** Removed Memory Blocks */
            removed_memory_blocks: number[];
            /** Compressed */
            compressed: {
                [key: string]: "none" | "light" | "medium" | "heavy" | "extreme";
            };
            summary: components["schemas"]["SummaryOut"] | null;
            /** Cards */
            cards: components["schemas"]["CardOut"][];
            /** Usage */
            usage: {
                [key: string]: components["schemas"]["SectionUsageOut"];
            };
            /** Levels */
            levels: {
                [key: string]: "none" | "light" | "medium" | "heavy" | "extreme";
            };
            /** Query */
            query: string;
            /** Budget Tokens */
            budget_tokens: number;
            /** Total Tokens */
            total_tokens: number;
            /** Compression Rate */
            compression_rate: number;
            /** @description set when the history was summarised */
            window: components["schemas"]["WindowOut"] | null;
            /**
             * Profile Memories
             * @description memories in the user_profile block (key user information) sent with a summary
             */
            profile_memories: number[];
            memory_summary: components["schemas"]["MemorySummaryOut"] | null;
            /**
             * Next Cursor
             * @description pass back as cursor (same query) to recall more memories; null: no more
             */
            next_cursor: string | null;
            /**
             * Cache
             * @description whether the knowledge cache answered the recall ("": nothing recalled)
             * @enum {string}
             */
            cache: "hit" | "miss" | "off" | "";
            /**
             * Sufficient
             * @description seed 001 §1.2: the recalled memories are enough to answer (as for recall); null when no memories were recalled
             */
            sufficient?: boolean | null;
            /**
             * Coverage
             * @description share of the query's aspects the recalled memories cover
             */
            coverage?: number | null;
        };
        /**
         * ContinuityOut
         * @description The strong hit this memory was said next to, and how many memories away.
         */
        ContinuityOut: {
            /** Anchor Id */
            anchor_id: number;
            /** Distance */
            distance: number;
        };
        /**
         * DiversityOut
         * @description MMR: λ and the word overlap with the most similar better-placed result.
         */
        DiversityOut: {
            /** Lambda */
            lambda: number;
            /** Max Similarity To Earlier */
            max_similarity_to_earlier: number;
        };
        /**
         * DroppedMemoryOut
         * @description A recalled memory the budget left out.
         */
        DroppedMemoryOut: {
            /** Id */
            id: number;
            /** Score */
            score: number;
        };
        /**
         * DroppedMessageOut
         * @description A message left out (summarised, or an old summary folded in).
         */
        DroppedMessageOut: {
            /** Index */
            index: number;
            /** Score */
            score: number;
        };
        /**
         * DroppedOut
         * @description A message compression left out.
         */
        DroppedOut: {
            /** Index */
            index: number;
            /** Score */
            score: number;
        };
        /**
         * ErasedCountsOut
         * @description Rows removed per kind (conversations: distinct conversation ids that were named).
         */
        ErasedCountsOut: {
            /** Conversations */
            conversations: number;
            /** Vectors */
            vectors: number;
            /**
             * Unembeddable
             * @description marks of texts the embedding provider would not embed
             */
            unembeddable: number;
            /** Postings */
            postings: number;
            /** Topics */
            topics: number;
            /** Links */
            links: number;
            /** Score History */
            score_history: number;
            /** Memories */
            memories: number;
            /** Term Statistics */
            term_statistics: number;
            /** Message Scores */
            message_scores: number;
            /** Compressions */
            compressions: number;
            /** Job Runs */
            job_runs: number;
            /**
             * Users
             * @description the person's row of per-user aggregates (0 or 1)
             */
            users: number;
            /**
             * Api Keys
             * @description keys bound to exactly this user (prefix:USER)
             */
            api_keys: number;
        };
        /**
         * ErasedOut
         * @description The outcome of ``DELETE /v1/users/{user_id}``: always 200; all zeros when nothing
         *     of the person was left (a repeated erasure).
         */
        ErasedOut: {
            /** User Id */
            user_id: string;
            erased: components["schemas"]["ErasedCountsOut"];
            /**
             * Total
             * @description rows removed in all
             */
            total: number;
        };
        /**
         * ErrorBody
         * @description The machine code and a human message.
         */
        ErrorBody: {
            /** Code */
            code: string;
            /** Message */
            message: string;
            /** Details */
            details?: unknown;
        };
        /**
         * ErrorOut
         * @description Every error response has this shape.
         */
        ErrorOut: {
            error: components["schemas"]["ErrorBody"];
        };
        /**
         * EvidenceOut
         * @description Why the memory is here; ``context_of`` names the hit whose conversation neighbour
         *     it is when it has no evidence of its own.
         */
        EvidenceOut: {
            query_dependent: components["schemas"]["QueryDependentOut"];
            query_independent: components["schemas"]["QueryIndependentOut"];
            /** Context Of */
            context_of: number | null;
        };
        /**
         * ExplanationOut
         * @description Why a memory came back: the query type and every signal's share of the score.
         *
         *     The ``signals`` contributions add up to ``score``; ``relevance`` breaks the lexical
         *     signal into BM25 terms and ``importance`` into its four components (seed 002).
         */
        ExplanationOut: {
            /**
             * Mode
             * @enum {string}
             */
            mode: "fused" | "importance_only";
            /** Query Type */
            query_type: ("temporal" | "diagnostic" | "procedural" | "technical" | "creative" | "conceptual" | "personal" | "conversational" | "default") | null;
            /** Query Type Cue */
            query_type_cue: string | null;
            time_expression: components["schemas"]["TimeExpressionOut"] | null;
            /** Score */
            score: number;
            /** Signals */
            signals: {
                [key: string]: components["schemas"]["SignalOut"];
            };
            /** Relevance */
            relevance: {
                [key: string]: unknown;
            };
            /** Importance */
            importance: {
                [key: string]: unknown;
            };
            continuity: components["schemas"]["ContinuityOut"] | null;
            diversity: components["schemas"]["DiversityOut"] | null;
            rerank?: components["schemas"]["RerankOut"] | null;
        } & {
            [key: string]: unknown;
        };
        /** HTTPValidationError */
        HTTPValidationError: {
            /** Detail */
            detail?: components["schemas"]["ValidationError"][];
        };
        /**
         * HistoryOut
         * @description A score snapshot.
         */
        HistoryOut: {
            /**
             * Scored At
             * Format: date-time
             */
            scored_at: string;
            /** Reason */
            reason: string;
            /** Importance Score */
            importance_score: number;
            /**
             * Importance Level
             * @enum {string}
             */
            importance_level: "high" | "medium" | "low";
            /** Frequency Score */
            frequency_score: number;
            /** Recency Score */
            recency_score: number;
            /** Emotion Score */
            emotion_score: number;
            /** Impact Score */
            impact_score: number;
        };
        /**
         * ImportedCountsOut
         * @description Lines of each kind the import wrote (the export's ``end`` line counts the same).
         */
        ImportedCountsOut: {
            /** Person */
            person: number;
            /** Memory */
            memory: number;
            /** Link */
            link: number;
            /** Message Score */
            message_score: number;
            /** Compression */
            compression: number;
        };
        /**
         * ImportedOut
         * @description The outcome of ``POST /v1/users/{user_id}/import``.
         */
        ImportedOut: {
            /** User Id */
            user_id: string;
            imported: components["schemas"]["ImportedCountsOut"];
        };
        /**
         * InjectedMemoryOut
         * @description A memory in the ``memory_context`` block, as injected.
         */
        InjectedMemoryOut: {
            /** Id */
            id: number;
            /** Memory Type */
            memory_type: string;
            /** Text */
            text: string;
            /** Score */
            score: number;
            /** Importance */
            importance: number;
            /** Tokens */
            tokens: number;
            /**
             * Level
             * @enum {string}
             */
            level: "none" | "light" | "medium" | "heavy" | "extreme";
            /**
             * Summarized
             * @description in the block's summary rather than a line of its own
             */
            summarized: boolean;
        };
        /**
         * JobRunOut
         * @description A job run (rescoring or embedding backfill).
         */
        JobRunOut: {
            /** Id */
            id: number;
            /** Job */
            job: string;
            /** Trigger */
            trigger: string;
            /** User Id */
            user_id: string | null;
            /** Status */
            status: string;
            /**
             * Started At
             * Format: date-time
             */
            started_at: string;
            /** Finished At */
            finished_at: string | null;
            /** Rows */
            rows: number;
            /** Escalations */
            escalations: number;
            /**
             * Failures
             * @description texts an embedding run could not embed, marked and skipped
             * @default 0
             */
            failures?: number;
            /** Error */
            error: string | null;
        };
        /**
         * LinkIn
         * @description Link this memory to another memory of the same user.
         */
        LinkIn: {
            /**
             * Target Id
             * @description not this memory's own id
             */
            target_id: number;
            /**
             * Weight
             * @default 1
             */
            weight?: number;
        };
        /**
         * LinkOut
         * @description A link between two memories.
         */
        LinkOut: {
            /** Memory Id A */
            memory_id_a: number;
            /** Memory Id B */
            memory_id_b: number;
            /** Kind */
            kind: string;
            /** Weight */
            weight: number;
            /** Shared Topics */
            shared_topics: string[];
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
        };
        /**
         * MemoryBatchIn
         * @description Up to 1,000 statements and 1,000,000 characters of content, stored in order in one
         *     transaction.
         */
        MemoryBatchIn: {
            /** Items */
            items: components["schemas"]["MemoryIn"][];
        };
        /**
         * MemoryIn
         * @description A statement to remember.
         */
        MemoryIn: {
            /** Content */
            content: string;
            /**
             * Memory Type
             * @default other
             * @enum {string}
             */
            memory_type?: "fact" | "preference" | "goal" | "decision" | "constraint" | "todo" | "event" | "code" | "other";
            /** Source */
            source?: string | null;
            /** Metadata */
            metadata?: {
                [key: string]: unknown;
            };
            /** Emotion Tags */
            emotion_tags?: string[];
            /** Created At */
            created_at?: string | null;
            /** Conversation Id */
            conversation_id?: string | null;
            /**
             * Role
             * @description whose words: "user", the person's own (the default), or "assistant", the assistant's reply stored as context of a conversation. A statement merges only with words of its own role, and only the person's words state facts (fact slots)
             * @default user
             * @enum {string}
             */
            role?: "user" | "assistant";
        };
        /**
         * MemoryOut
         * @description A stored memory as the API returns it.
         */
        MemoryOut: {
            /** Id */
            id: number;
            /** User Id */
            user_id: string;
            /** Content */
            content: string;
            /**
             * Memory Type
             * @enum {string}
             */
            memory_type: "fact" | "preference" | "goal" | "decision" | "constraint" | "todo" | "event" | "code" | "other";
            /** Source */
            source: string | null;
            /** Conversation Id */
            conversation_id: string | null;
            /**
             * Role
             * @description whose words: "user" (the person's) or "assistant"
             * @enum {string}
             */
            role: "user" | "assistant";
            /** Metadata */
            metadata: {
                [key: string]: unknown;
            };
            /**
             * Created At
             * Format: date-time
             */
            created_at: string;
            /**
             * Updated At
             * Format: date-time
             */
            updated_at: string;
            /** Frequency Count */
            frequency_count: number;
            /** Mention Count */
            mention_count: number;
            /** Recall Count */
            recall_count: number;
            /** Last Recalled At */
            last_recalled_at: string | null;
            /** Last Mentioned At */
            last_mentioned_at: string | null;
            /** Emotion Tags */
            emotion_tags: string[];
            /** Topics */
            topics: string[];
            /** Associated Count */
            associated_count: number;
            /** Importance Score */
            importance_score: number;
            /**
             * Importance Level
             * @enum {string}
             */
            importance_level: "high" | "medium" | "low";
            scores: components["schemas"]["api__schemas__memories__ScoresOut"];
            /** Escalated At */
            escalated_at: string | null;
            /**
             * Fact Slot
             * @description What it states, e.g. "residence" (fact correction)
             */
            fact_slot: string | null;
            /**
             * Superseded By Id
             * @description The newer memory that replaced it
             */
            superseded_by_id: number | null;
            /** Superseded At */
            superseded_at: string | null;
            /** Merged */
            merged?: boolean | null;
        };
        /**
         * MemoryPageOut
         * @description A page of memories; pass ``next_cursor`` back as ``cursor`` for the next.
         */
        MemoryPageOut: {
            /** Items */
            items: components["schemas"]["MemoryOut"][];
            /** Next Cursor */
            next_cursor: string | null;
        };
        /**
         * MemoryPatch
         * @description Fields to change; omitted fields stay as they are.
         */
        MemoryPatch: {
            /** Content */
            content?: string | null;
            /** Memory Type */
            memory_type?: ("fact" | "preference" | "goal" | "decision" | "constraint" | "todo" | "event" | "code" | "other") | null;
            /** Source */
            source?: string | null;
            /** Metadata */
            metadata?: {
                [key: string]: unknown;
            } | null;
            /** Emotion Tags */
            emotion_tags?: string[] | null;
        };
        /**
         * MemorySummaryOut
         * @description The recalled memories as one summary of at most 200 characters (seed 004).
         */
        MemorySummaryOut: {
            /**
             * Method
             * @enum {string}
             */
            method: "llm" | "extractive";
            /** Text */
            text: string;
            /** Memory Ids */
            memory_ids: number[];
        };
        /**
         * MessageScoreOut
         * @description One message's importance (0-10, seed 000's scale) and how it was reached:
         *     ``score = clamp(content + recency_bonus, 0, 10)``, where content is ``rule_score``, or
         *     ``confidence · rule_score + (1 − confidence) · llm_score`` once the LLM answered.
         */
        MessageScoreOut: {
            /** Index */
            index: number;
            /** Id */
            id: string | null;
            /** Score */
            score: number;
            /**
             * Rule Kind
             * @description the rule that decided rule_score (default: none did)
             */
            rule_kind: string;
            /**
             * Rule Score
             * @description the rule layer's score, 0-10
             */
            rule_score: number;
            /**
             * Llm Score
             * @description the LLM's score, 0-10, when it was asked
             */
            llm_score: number | null;
            /**
             * Recency Bonus
             * @description seed TimeDecayScorer: up to +1.0 for the newest
             */
            recency_bonus: number;
            /** Dimensions */
            dimensions: {
                [key: string]: number;
            };
            /**
             * Confidence
             * @description the rule layer's confidence in rule_score
             */
            confidence: number;
            /**
             * Method
             * @enum {string}
             */
            method: "rule" | "llm" | "cache";
            /**
             * Pending
             * @description the LLM will score this message in the background
             * @default false
             */
            pending?: boolean;
            /** Rules */
            rules: string[];
            /** Reason */
            reason: string | null;
        };
        /**
         * PersonOut
         * @description A person's settings.
         */
        PersonOut: {
            /** User Id */
            user_id: string;
            /**
             * Time Zone
             * @description the IANA zone the person's days are counted in; null: UTC
             */
            time_zone: string | null;
        };
        /**
         * PersonPatch
         * @description Settings to change; an omitted one stays as it is.
         */
        PersonPatch: {
            /**
             * Time Zone
             * @description the zone to count the person's days in; null: back to UTC
             */
            time_zone?: string | null;
        };
        /**
         * PhaseOut
         * @description An earlier phase condensed by the phase switch (seed 000).
         */
        PhaseOut: {
            /** Phase */
            phase: string;
            /**
             * Kept
             * @description its messages that scored at least PHASE_KEEP_SCORE
             */
            kept: number[];
            /**
             * Summarized
             * @description its messages folded into the phase_summary
             */
            summarized: number[];
            /**
             * Method
             * @description who wrote the summary; null when every message was kept
             */
            method: ("llm" | "extractive") | null;
        };
        /**
         * QueryDependentOut
         * @description What ties the memory to this query (services/recall/evidence.py).
         */
        QueryDependentOut: {
            /**
             * Terms
             * @description the query's content terms the memory holds
             */
            terms: string[];
            /**
             * Term Coverage
             * @description their idf-weighted share of the query's terms
             */
            term_coverage: number;
            /**
             * Relevance
             * @description BM25 / the best candidate's BM25
             */
            relevance: number;
            /** Phrase */
            phrase: number;
            /**
             * Time
             * @description fit of when it was said to the query's time (0: none)
             */
            time: number;
            /**
             * Feeling
             * @description its emotion tags against the query's urgency/feeling
             */
            feeling: number;
            /**
             * Semantic
             * @description cosine similarity from the semantic source (0: none)
             */
            semantic: number;
            /**
             * Other Language
             * @description the memory is in the other language than the query (Chinese/English): no word can match, and a similarity counts as evidence from a lower floor
             */
            other_language: boolean;
        };
        /**
         * QueryIndependentOut
         * @description What only ranks the memory, whatever the query.
         */
        QueryIndependentOut: {
            /** Importance */
            importance: number;
            /** Recency */
            recency: number;
            /** Continuity */
            continuity: number;
        };
        /**
         * RecallHitOut
         * @description A recalled memory with the numbers behind its rank.
         */
        RecallHitOut: {
            memory: components["schemas"]["MemoryOut"];
            /** Score */
            score: number;
            /** Relevance */
            relevance: number;
            /** Importance */
            importance: number;
            /**
             * Confidence
             * @description chance in [0, 1] that this is a result the person would accept, from its query-dependent evidence (0.5: about half such hits were); null for an empty query
             */
            confidence?: number | null;
            /** @description null for an empty query */
            evidence?: components["schemas"]["EvidenceOut"] | null;
            /**
             * Counted
             * @description this recall raised its recall_count (track and confident)
             * @default false
             */
            counted?: boolean;
            explanation?: components["schemas"]["ExplanationOut"] | null;
        };
        /**
         * RecallIn
         * @description What the assistant is about to answer; empty means "what matters most".
         */
        RecallIn: {
            /**
             * Query
             * @default
             */
            query?: string;
            /**
             * Top K
             * @default 5
             */
            top_k?: number;
            /**
             * Explain
             * @default false
             */
            explain?: boolean;
            /**
             * Track
             * @default true
             */
            track?: boolean;
            /** Types */
            types?: ("fact" | "preference" | "goal" | "decision" | "constraint" | "todo" | "event" | "code" | "other")[];
            /**
             * Include Superseded
             * @description Also recall memories a newer fact replaced (marked).
             * @default false
             */
            include_superseded?: boolean;
            /**
             * Rerank Mode
             * @description with a reranker configured: fast (10 candidates in batches of 5), balanced (20 in 10s) or quality (40 in 20s); default RERANK_MODE
             */
            rerank_mode?: ("fast" | "balanced" | "quality") | null;
            /**
             * Min Confidence
             * @description leave out hits of lower confidence (default RECALL_MIN_CONFIDENCE); a recall may return fewer than top_k results, or none
             */
            min_confidence?: number | null;
            /**
             * Time Zone
             * @description count the days the query names (yesterday, 上周五) in this IANA zone instead of the person's own (PATCH /v1/users/{user_id}; UTC when unset)
             */
            time_zone?: string | null;
        };
        /**
         * RecallOut
         * @description Best first; possibly fewer than ``top_k`` (only hits with evidence come back).
         */
        RecallOut: {
            /** Results */
            results: components["schemas"]["RecallHitOut"][];
            /**
             * Sufficient
             * @description seed 001 §1.2: at least SUFFICIENT_MIN_RESULTS results, coverage at least SUFFICIENT_MIN_COVERAGE and mean confidence at least SUFFICIENT_MIN_CONFIDENCE; when false, look beyond private memory
             */
            sufficient: boolean;
            /**
             * Coverage
             * @description share of the query's aspects (its content terms, idf-weighted; its time; its urgency or feeling) that the results cover together
             */
            coverage: number;
        };
        /**
         * RerankOut
         * @description The reranker's part (seed 004 §1): ``score = contribution + hybrid_contribution``.
         */
        RerankOut: {
            /** Relevance */
            relevance: number;
            /** Weight */
            weight: number;
            /** Contribution */
            contribution: number;
            /** Hybrid Score */
            hybrid_score: number;
            /** Hybrid Normalized */
            hybrid_normalized: number;
            /** Hybrid Weight */
            hybrid_weight: number;
            /** Hybrid Contribution */
            hybrid_contribution: number;
            /**
             * Mode
             * @enum {string}
             */
            mode: "fast" | "balanced" | "quality";
        };
        /**
         * RescoreIn
         * @description Run rescoring now, for everyone or one user.
         */
        RescoreIn: {
            /** User Id */
            user_id?: string | null;
        };
        /**
         * ScoreMessagesIn
         * @description Messages to score against a task.
         */
        ScoreMessagesIn: {
            /** Messages */
            messages: components["schemas"]["ChatMessageIn"][];
            /**
             * Task Context
             * @default
             */
            task_context?: string;
            /**
             * Task Type
             * @description default, refactor, debugging, requirements (or 代码重构 …)
             */
            task_type?: ("default" | "refactor" | "debugging" | "requirements" | "代码重构" | "重构" | "bug调试" | "调试" | "debug" | "需求分析" | "requirements_analysis" | "默认") | null;
            /**
             * Conversation Id
             * @description persist the scores (and reuse LLM answers) under this id
             */
            conversation_id?: string | null;
            /**
             * Background
             * @description with an LLM: answer with rule scores now, let the LLM score the uncertain messages afterwards for the next request (default MESSAGE_SCORE_BACKGROUND)
             */
            background?: boolean | null;
            /**
             * Current Phase
             * @description the phase of work in progress: named in the LLM's prompt; in compress, messages of earlier phases are condensed (seed 000)
             */
            current_phase?: string | null;
        };
        /**
         * SectionUsageOut
         * @description One budget section: allocated after re-allocation, used, percentage.
         */
        SectionUsageOut: {
            /** Allocated */
            allocated: number;
            /** Used */
            used: number;
            /** Percentage */
            percentage: number;
        };
        /**
         * SignalOut
         * @description One signal's value in [0, 1], its weight for the query type and their product.
         */
        SignalOut: {
            /** Value */
            value: number;
            /** Weight */
            weight: number;
            /** Contribution */
            contribution: number;
        };
        /**
         * StoredScoreOut
         * @description A persisted message score.
         */
        StoredScoreOut: {
            /** Message Index */
            message_index: number;
            /** Message Id */
            message_id: string | null;
            /** Role */
            role: string;
            /** Content Hash */
            content_hash: string;
            /** Task Type */
            task_type: string;
            /** Score */
            score: number;
            /** Dimensions */
            dimensions: {
                [key: string]: number;
            };
            /** Confidence */
            confidence: number;
            /** Method */
            method: string;
            /** Reason */
            reason: string | null;
            /** Llm Score */
            llm_score: number | null;
            /**
             * Scored At
             * Format: date-time
             */
            scored_at: string;
        };
        /**
         * StoredScoresOut
         * @description A page of a conversation's scores; pass ``next_cursor`` as ``after`` for more.
         */
        StoredScoresOut: {
            /** Conversation Id */
            conversation_id: string;
            /** Items */
            items: components["schemas"]["StoredScoreOut"][];
            /** Next Cursor */
            next_cursor: number | null;
        };
        /**
         * SummaryOut
         * @description The rolling summary written this time.
         */
        SummaryOut: {
            /**
             * Method
             * @enum {string}
             */
            method: "llm" | "extractive";
            /** Summarized */
            summarized: number[];
            /** Previous Folded */
            previous_folded: boolean;
            /** Cards */
            cards: {
                [key: string]: unknown;
            }[];
        };
        /**
         * SupersedeIn
         * @description The newer memory (of the same user) that replaces this one.
         */
        SupersedeIn: {
            /**
             * By
             * @description not this memory's own id
             */
            by: number;
        };
        /**
         * TimeExpressionOut
         * @description The time a query names: a UTC span, or a month of any year.
         */
        TimeExpressionOut: {
            /** Text */
            text: string;
            /** Start */
            start: string | null;
            /** End */
            end: string | null;
            /** Month Of Any Year */
            month_of_any_year: number | null;
        };
        /**
         * UsedIn
         * @description The memories an answer used (from a recall with ``track: false``).
         */
        UsedIn: {
            /**
             * Ids
             * @description each counted once
             */
            ids: number[];
        };
        /**
         * UsedOut
         * @description The memories counted, as the count left them.
         */
        UsedOut: {
            /** Counted */
            counted: number[];
            /** Memories */
            memories: components["schemas"]["MemoryOut"][];
        };
        /** ValidationError */
        ValidationError: {
            /** Location */
            loc: (string | number)[];
            /** Message */
            msg: string;
            /** Error Type */
            type: string;
            /** Input */
            input?: unknown;
            /** Context */
            ctx?: Record<string, never>;
        };
        /**
         * WindowOut
         * @description Why the history was summarised this time, and where the current window starts.
         */
        WindowOut: {
            /**
             * Trigger
             * @description a user's request for a new topic, a message marked topic_change, the history over its budget share, or too little headroom left
             * @enum {string}
             */
            trigger: "instruction" | "marked" | "budget" | "headroom";
            /**
             * Start
             * @description the message that started a new topic, if one did
             */
            start: number | null;
        };
        /**
         * ScoresOut
         * @description The four components of seed 002 §3 and their weighted total.
         */
        api__schemas__memories__ScoresOut: {
            /** Importance */
            importance: number;
            /**
             * Level
             * @enum {string}
             */
            level: "high" | "medium" | "low";
            /** Frequency */
            frequency: number;
            /** Recency */
            recency: number;
            /** Emotion */
            emotion: number;
            /** Impact */
            impact: number;
            /** Scored At */
            scored_at: string | null;
        };
        /**
         * ScoresOut
         * @description A score per message, in message order.
         */
        api__schemas__messages__ScoresOut: {
            /** Task Type */
            task_type: string;
            /** Scores */
            scores: components["schemas"]["MessageScoreOut"][];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    list_memories_v1_users__user_id__memories_get: {
        parameters: {
            query?: {
                order?: "importance" | "recent";
                limit?: number;
                /** @description next_cursor of the previous page */
                cursor?: string | null;
                type?: ("fact" | "preference" | "goal" | "decision" | "constraint" | "todo" | "event" | "code" | "other")[] | null;
                level?: ("high" | "medium" | "low") | null;
                include_superseded?: boolean;
            };
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryPageOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    create_memory_v1_users__user_id__memories_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemoryIn"];
            };
        };
        responses: {
            /** @description Merged into an existing memory */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    create_memories_v1_users__user_id__memories_batch_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemoryBatchIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BatchOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_memory_v1_users__user_id__memories__memory_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
                /** @description a memory id */
                memory_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    delete_memory_v1_users__user_id__memories__memory_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
                /** @description a memory id */
                memory_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    update_memory_v1_users__user_id__memories__memory_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
                /** @description a memory id */
                memory_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemoryPatch"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    list_links_v1_users__user_id__memories__memory_id__links_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
                /** @description a memory id */
                memory_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LinkOut"][];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    link_memories_v1_users__user_id__memories__memory_id__links_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
                /** @description a memory id */
                memory_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LinkIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LinkOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    supersede_memory_v1_users__user_id__memories__memory_id__supersede_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
                /** @description a memory id */
                memory_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SupersedeIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    restore_memory_v1_users__user_id__memories__memory_id__restore_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
                /** @description a memory id */
                memory_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    recall_v1_users__user_id__recall_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecallIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecallOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Too Many Requests */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    used_v1_users__user_id__memories_used_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UsedIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsedOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    escalations_v1_users__user_id__escalations_get: {
        parameters: {
            query?: {
                include_acknowledged?: boolean;
                include_superseded?: boolean;
            };
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"][];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    acknowledge_v1_users__user_id__escalations__memory_id__ack_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
                /** @description a memory id */
                memory_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    score_messages_v1_users__user_id__messages_score_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ScoreMessagesIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["api__schemas__messages__ScoresOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    compress_messages_v1_users__user_id__messages_compress_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CompressMessagesIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompressOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    assemble_context_v1_users__user_id__context_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ContextIn"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContextOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Too Many Requests */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    get_person_v1_users__user_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PersonOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    erase_user_v1_users__user_id__delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErasedOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    patch_person_v1_users__user_id__patch: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PersonPatch"];
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PersonOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    export_user_v1_users__user_id__export_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description JSON Lines: header, person, memories, links, message scores, compressions, end (docs/api.md, docs/person-export.schema.json) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-ndjson": string;
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    import_user_v1_users__user_id__import_post: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        /** @description an export made by GET /v1/users/{user_id}/export */
        requestBody: {
            content: {
                "application/x-ndjson": string;
            };
        };
        responses: {
            /** @description Successful Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ImportedOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Conflict */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Request Entity Too Large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    chat_completions_v1_chat_completions_post: {
        parameters: {
            query?: never;
            header?: {
                "x-jarvis-user"?: string | null;
                "x-jarvis-conversation"?: string | null;
                "x-jarvis-memory"?: string | null;
                "x-openwebui-user-id"?: string | null;
                "x-openwebui-chat-id"?: string | null;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Too Many Requests */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Bad Gateway */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Service Unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Gateway Timeout */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    models_v1_models_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Bad Gateway */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Service Unavailable */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Gateway Timeout */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    users_admin_users_get: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminUsersOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    user_memories_admin_users__user_id__memories_get: {
        parameters: {
            query?: {
                order?: "importance" | "recent";
                limit?: number;
                /** @description next_cursor of the previous page */
                cursor?: string | null;
                type?: ("fact" | "preference" | "goal" | "decision" | "constraint" | "todo" | "event" | "code" | "other")[] | null;
                level?: ("high" | "medium" | "low") | null;
                include_superseded?: boolean;
            };
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryPageOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    memory_admin_memories__memory_id__get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a memory id */
                memory_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminMemoryOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Not Found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    jobs_admin_jobs_get: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobRunOut"][];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Validation Error */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"];
                };
            };
        };
    };
    rescore_now_admin_jobs_rescore_post: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["RescoreIn"] | null;
            };
        };
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobRunOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    stats_admin_stats_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    message_scores_admin_users__user_id__conversations__conversation_id__message_scores_get: {
        parameters: {
            query?: {
                limit?: number;
                after?: number;
            };
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
                conversation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StoredScoresOut"];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    compressions_admin_users__user_id__conversations__conversation_id__compressions_get: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path: {
                /** @description 1-128 of [A-Za-z0-9_.:@-] */
                user_id: string;
                conversation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CompressionOut"][];
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Unprocessable Entity */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
    healthz_healthz_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: string;
                    };
                };
            };
        };
    };
    readyz_readyz_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description Database down or not migrated, or the model loading */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    metrics_metrics_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; version=1.0.0; charset=utf-8": unknown;
                };
            };
            /** @description Unauthorized */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
            /** @description Forbidden */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorOut"];
                };
            };
        };
    };
}
