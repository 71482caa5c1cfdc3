import { describe, expect, it } from "vitest";
import { WORK_LIMITS } from "../domain/workLimits";
import { UserFacingError } from "../errors";
import { releaseWhenSent, withWorkSlot, WorkLimiter, workLimiter } from "./workLimiter";

describe("WorkLimiter", () => {
  it("counts per person and in total, throws a 429 with Retry-After, and gives a slot back once however often released", async () => {
    let now = 0;
    const limiter = new WorkLimiter(WORK_LIMITS, () => now);
    const first = await limiter.acquire("export", "ann");
    const refusal = await limiter.acquire("export", "ann").then(
      () => undefined,
      (error) => error as UserFacingError,
    );
    expect(refusal).toBeInstanceOf(UserFacingError);
    expect(refusal!.status).toBe(429);
    expect(refusal!.headers["retry-after"]).toBe("2");
    const others = await Promise.all(["bob", "cid", "dee"].map((p) => limiter.acquire("export", p)));
    expect(limiter.runningNow("export")).toBe(4);
    await expect(limiter.acquire("export", "eve")).rejects.toThrow(/busy with 4 exports/);
    now = 7_500;
    first();
    first();
    expect(limiter.runningNow("export")).toBe(3);
    expect(limiter.runningNow("export", "ann")).toBe(0);
    // Retry-After now follows how long the work took.
    await limiter.acquire("export", "eve");
    await expect(limiter.acquire("export", "eve")).rejects.toThrow(/about 8 s/);
    others.forEach((release) => release());
    // Other kinds are counted apart.
    expect(limiter.runningNow("preview")).toBe(0);
    await expect(limiter.acquire("preview", "ann")).resolves.toBeTypeOf("function");
  });

  it("asks the shared count only when this process's own allows, and gives back what it counted when the shared count refuses", async () => {
    const asked: string[] = [];
    const given: string[] = [];
    let elsewhere = { person: 0, total: 0 };
    const shared = {
      async take(kind: string, person: string, admit: (r: { person: number; total: number }) => boolean) {
        asked.push(`${kind}:${person}`);
        return admit(elsewhere) ? { id: `${person}-slot`, running: elsewhere } : { id: null, running: elsewhere };
      },
      give: (id: string) => void given.push(id),
    };
    const limiter = new WorkLimiter(
      WORK_LIMITS,
      () => 0,
      () => shared,
    );
    // Another replica runs ann's export: this one refuses hers, with the person's message, and counts nothing.
    elsewhere = { person: 1, total: 1 };
    await expect(limiter.acquire("export", "ann")).rejects.toThrow(/You already have an export running/);
    expect(limiter.runningNow("export")).toBe(0);
    elsewhere = { person: 0, total: 1 };
    const release = await limiter.acquire("export", "ann");
    // Refused by this process's own count: the database is not asked.
    await expect(limiter.acquire("export", "ann")).rejects.toThrow(/already have/);
    expect(asked).toEqual(["export:ann", "export:ann"]);
    release();
    release();
    expect(given).toEqual(["ann-slot"]);
  });
});

describe("releaseWhenSent", () => {
  it("holds the slot of a streamed answer until its last byte is read, and gives it back when the reader cancels", async () => {
    let released = 0;
    const stream = () => new Response(new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode("a,b\r\n")), c.close()) }));
    const sent = releaseWhenSent(stream(), () => released++, true);
    expect(released).toBe(0);
    expect(await sent.text()).toBe("a,b\r\n");
    expect(released).toBe(1);
    await releaseWhenSent(stream(), () => released++, true).body!.cancel();
    expect(released).toBe(2);
    releaseWhenSent(Response.json({ ok: true }), () => released++, false);
    expect(released).toBe(3);
  });
});

describe("withWorkSlot", () => {
  it("holds the process's slot while the work runs, refuses one more, and gives it back even when the work fails", async () => {
    let finish!: () => void;
    const running = withWorkSlot("bulk", "page-user", () => new Promise<void>((resolve) => (finish = resolve)));
    await new Promise((r) => setImmediate(r));
    await expect(withWorkSlot("bulk", "page-user", async () => "never")).rejects.toThrow(/You already have a bulk upload running/);
    finish();
    await running;
    await expect(withWorkSlot("bulk", "page-user", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(workLimiter().runningNow("bulk", "page-user")).toBe(0);
  });
});
