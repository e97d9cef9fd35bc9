// The real service as its own process on a free loopback port, on a fresh SQLite file:
// `jarvis-memory serve` from the project's virtualenv ($JARVIS_VENV, else ../../.venv).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

// build/test/support/ -> the repository
const ROOT = resolve(fileURLToPath(new URL(".", import.meta.url)), "../../../../..");
const VENV = process.env.JARVIS_VENV ?? join(ROOT, ".venv");
const CLI = join(VENV, "bin", "jarvis-memory");
export const SERVICE_KEY = "ts-service-key";
/** The prefix the scoped key reaches. */
export const SCOPE = "acme:";

export interface Service {
  url: string;
  serviceKey: string;
  /** A key made with `jarvis-memory keys create --scope prefix:acme:`. */
  scopedKey: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
  const address = probe.address();
  await new Promise((done) => probe.close(done));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

async function healthy(url: string, server: ChildProcess): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (server.exitCode !== null) throw new Error(`the service exited with ${server.exitCode}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error("the service never answered /healthz");
}

/** The service in front of the model server at `llmBaseUrl`, until `stop`. */
export async function startService(llmBaseUrl: string): Promise<Service> {
  const dir = await mkdtemp(join(tmpdir(), "jarvis-ts-"));
  const env = {
    ...process.env,
    DATABASE_URL: `sqlite+aiosqlite:///${join(dir, "jarvis.db")}`,
    SCHEDULER_ENABLED: "false",
    FREEZE_STARTUP_HEAP: "false",
    EMBEDDING_PROVIDER: "none",
    JARVIS_API_KEYS: SERVICE_KEY,
    LLM_BASE_URL: llmBaseUrl,
    LLM_MODEL: "jarvis-internal",
  };
  // Migrates the new file first, as serve does.
  const created = await promisify(execFile)(CLI, ["keys", "create", "--name", "ts", "--scope", `prefix:${SCOPE}`], {
    env,
    cwd: dir,
  });
  const port = await freePort();
  const server = spawn(CLI, ["serve", "--host", "127.0.0.1", "--port", String(port)], {
    env,
    cwd: dir,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = ""; // shown only when the service fails to start
  server.stderr?.on("data", (part: Buffer) => {
    log = (log + part.toString("utf8")).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (server.exitCode === null) {
      const exited = new Promise((done) => server.once("exit", done));
      server.kill("SIGTERM");
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await healthy(url, server);
  } catch (error) {
    await stop();
    throw new Error(`${String(error)}; its log ends:\n${log}`);
  }
  return { url, serviceKey: SERVICE_KEY, scopedKey: created.stdout.trim(), stop };
}
