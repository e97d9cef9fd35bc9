// tsc emits no .d.ts for a .d.ts source: copy the generated schema types beside the
// declarations that import them (dist/types.d.ts imports "./schema.js").
import { copyFileSync } from "node:fs";

copyFileSync(new URL("../src/schema.d.ts", import.meta.url), new URL("../dist/schema.d.ts", import.meta.url));
