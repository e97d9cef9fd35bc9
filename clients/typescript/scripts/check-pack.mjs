// What `npm pack` makes is usable: install the tarball into a temporary project and
// compile a small consumer with tsc --strict, against the package's own .d.ts files
// (skipLibCheck off), as Node (NodeNext) and as a bundler for the browser resolve it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL("..", import.meta.url));
const tsc = join(here, "node_modules/typescript/bin/tsc");
const dir = mkdtempSync(join(tmpdir(), "jarvis-ts-pack-"));
const run = (command, args, cwd = dir) => execFileSync(command, args, { cwd, encoding: "utf8" });

const CONSUMER = `import {
  type ChatCompletionChunk,
  type Memory,
  type RecallResult,
  type components,
  InvalidInputError,
  JarvisMemory,
  JarvisMemoryError,
} from "jarvis-memory-client";

const memory = new JarvisMemory({ baseUrl: "http://127.0.0.1:8000", apiKey: undefined });

export async function use(): Promise<string[]> {
  const stored: Memory = await memory.remember("ada", "I moved to Lisbon", { memory_type: "fact" });
  const found: RecallResult = await memory.recall("ada", "Lisbon", { top_k: 3, track: false });
  const level: components["schemas"]["MemoryOut"]["importance_level"] = stored.importance_level;
  const tokens: string[] = [level, ...found.results.map((hit) => hit.memory.content)];
  const stream = await memory.streamChat({ model: "m", messages: [{ role: "user", content: "hi" }] }, { user: "ada" });
  for await (const chunk of stream) {
    const typed: ChatCompletionChunk = chunk;
    tokens.push(typed.choices[0]?.delta.content ?? "");
  }
  try {
    await memory.remember("ada", "");
  } catch (error) {
    if (error instanceof InvalidInputError) tokens.push(...error.issues.map((issue) => issue.msg));
    else if (error instanceof JarvisMemoryError) tokens.push(error.code);
  }
  return tokens;
}
`;

try {
  const [packed] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", dir], here));
  const files = packed.files.map((file) => file.path);
  for (const needed of ["dist/index.js", "dist/index.d.ts", "dist/schema.d.ts", "README.md"]) {
    if (!files.includes(needed)) throw new Error(`the package lacks ${needed}: ${files.join(", ")}`);
  }
  const stray = files.filter((file) => !/^(dist\/|README\.md$|package\.json$)/.test(file));
  if (stray.length > 0) throw new Error(`the package carries files it should not: ${stray.join(", ")}`);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  run("npm", ["install", "--offline", "--no-audit", "--no-fund", join(dir, packed.filename)]);
  writeFileSync(join(dir, "consumer.ts"), CONSUMER);
  for (const [module, moduleResolution] of [["NodeNext", "NodeNext"], ["ESNext", "Bundler"]]) {
    const compilerOptions = {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      target: "ES2022",
      lib: ["ES2022", "DOM", "DOM.Iterable"],
      types: [],
      module,
      moduleResolution,
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }));
    try {
      run(process.execPath, [tsc, "-p", "tsconfig.json"]);
    } catch (error) {
      throw new Error(`the consumer does not compile (${moduleResolution}):\n${error.stdout}`);
    }
  }
  console.log(`${packed.filename}: ${files.length} files; its types compile under tsc --strict`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
