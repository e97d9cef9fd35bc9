// Everything that needs the real service: one service process (and one loopback model
// server behind its chat proxy) for all of it, since starting one takes seconds.
import { after, before, describe } from "node:test";
import { clientTests } from "./client-suite.js";
import { exampleTests } from "./example-suite.js";
import { proxyTests } from "./proxy-suite.js";
import { type Service, startService } from "./support/service.js";
import { Upstream } from "./support/upstream.js";

export interface Live {
  service: Service;
  upstream: Upstream;
}

const live = { upstream: new Upstream() } as Live;

before(async () => {
  const upstreamUrl = await live.upstream.start();
  live.service = await startService(upstreamUrl);
});

after(async () => {
  await live.service?.stop();
  await live.upstream.stop();
});

describe("the client against the service", () => clientTests(live));
describe("the chat proxy, streamed and whole", () => proxyTests(live));
describe("the README's example", () => exampleTests(live));
