import { z } from "zod";
import { describe, expect, it } from "vitest";
import { useMigratedDatabase } from "../testing/database";
import { request } from "../testing/routes";
import { apiRoute } from "./api";
import { endpoint } from "./endpoint";

/** apiRoute checks every answer against its endpoint's schema in tests and development. */
useMigratedDatabase();

const Greeting = endpoint({
  method: "GET",
  path: "/api/v1/greeting",
  summary: "A greeting",
  access: "public",
  answer: z.strictObject({ greeting: z.string(), count: z.number().int() }),
});

describe("answers checked against their contract", () => {
  it("sends an answer that matches its schema as it is", async () => {
    const route = apiRoute(Greeting, async () => ({ greeting: "hello", count: 2 }));
    const response = await route(request("/api/v1/greeting", { origin: null }));
    expect([response.status, await response.json()]).toEqual([200, { greeting: "hello", count: 2 }]);
    expect(route.endpoint).toBe(Greeting);
  });

  it("turns a drifting answer into a 500 that names the difference", async () => {
    const drifted = apiRoute(Greeting, async () => ({ greeting: "hello", count: "two" }) as unknown as { greeting: string; count: number });
    const response = await drifted(request("/api/v1/greeting", { origin: null }));
    expect(response.status).toBe(500);
    expect((await response.json()).error).toMatch(/did not match its contract \(The count must be a number\)/);

    const extra = apiRoute(Greeting, async () => ({ greeting: "hi", count: 1, passwordHash: "x" }) as { greeting: string; count: number });
    expect((await extra(request("/api/v1/greeting", { origin: null }))).status).toBe(500);
  });

  it("checks a Response the handler built itself, and leaves errors alone", async () => {
    const built = apiRoute(Greeting, async () => Response.json({ greeting: 1 }));
    expect((await built(request("/api/v1/greeting", { origin: null }))).status).toBe(500);
    const refused = apiRoute(Greeting, async () => Response.json({ error: "no" }, { status: 409 }));
    expect((await refused(request("/api/v1/greeting", { origin: null }))).status).toBe(409);
  });
});
