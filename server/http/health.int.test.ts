import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { GET as health } from "@/app/api/health/route";
import { closeDb } from "../store/db";

describe("health without a database", () => {
  afterAll(() => closeDb());

  it("answers 503 with the reason, and keeps the database's own words for the log", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    process.env.DATABASE_URL = `postgresql://postgres@127.0.0.1:${port}/none`;
    const response = await health(new Request("http://127.0.0.1/api/health"));
    expect(response.status).toBe(503);
    const body = await response.json();
    expect(body).toMatchObject({ status: "unavailable", database: "postgres" });
    expect(body.reason).toBe("database unreachable; the details are in the server log");
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres@/);
  });
});

describe("API routes without a database", () => {
  afterAll(() => closeDb());

  it("answer 503 saying the database is unavailable, not a bare 500", async () => {
    process.env.DATABASE_URL = "postgresql://postgres@127.0.0.1:1/none";
    const { GET: listUsers } = await import("@/app/api/v1/users/route");
    const response = await listUsers(
      new Request("http://127.0.0.1:3000/api/v1/users", { headers: { cookie: "fleetskew_session=some-token", host: "127.0.0.1:3000" } }),
    );
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: "The database is unavailable; try again shortly" });
  });
});
