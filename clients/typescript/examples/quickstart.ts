import { JarvisMemory, NotFoundError } from "jarvis-memory-client";

const memory = new JarvisMemory({
  baseUrl: process.env.JARVIS_URL ?? "http://127.0.0.1:8000",
  apiKey: process.env.JARVIS_API_KEY,
});

await memory.remember("ada", "I moved to Lisbon in May", { memory_type: "fact" });
await memory.remember("ada", "I prefer green tea to coffee", { memory_type: "preference" });

const { results } = await memory.recall("ada", "Where did I move?");
for (const hit of results) {
  console.log(`${hit.memory.memory_type}: ${hit.memory.content}`);
}

try {
  await memory.getMemory("ada", 999_999);
} catch (error) {
  if (!(error instanceof NotFoundError)) throw error;
  console.log(`${error.status} ${error.code}`);
}
