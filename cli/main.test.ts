import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "./args";
import { MAX_ANSWER_BYTES } from "./client";
import { formatPlan, nothingPlanned, statusExitCode, watchEnds } from "./format";
import { main, type Io } from "./main";

/**
 * The command as a pipeline sees it: what it prints and the exit code, for answers a console (or
 * something posing as one) may give. The network is a function here; cli/cli.int.test.ts runs the
 * command against the real route handlers.
 */
type Sent = { url: string; method: string; headers: Record<string, string>; body: unknown };

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

function run(argv: string[], answer: (sent: Sent) => Response | Promise<Response>, env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const sent: Sent[] = [];
  const io: Io = {
    env: { FLEETSKEW_URL: "https://console.example", FLEETSKEW_TOKEN: "fsk_test_token", ...env },
    cwd: path.resolve(__dirname, ".."),
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    fetch: (async (url: URL, init: RequestInit) => {
      const request = {
        url: String(url),
        method: init.method!,
        headers: init.headers as Record<string, string>,
        body: init.body ? JSON.parse(String(init.body)) : undefined,
      };
      sent.push(request);
      return answer(request);
    }) as typeof fetch,
  };
  return main(argv, io).then((code) => ({ code, out: out.join("\n"), err: err.join("\n"), sent }));
}

const plan = (over: Record<string, unknown> = {}) => ({
  waves: [
    { name: "canaries", kind: "canary", group: null, mandatory: true, clusters: ["legacy"] },
    { name: "wave 1", kind: "batch", group: null, mandatory: false, clusters: ["c-1", "c-2", "c-3", "c-4", "c-5", "c-6", "c-7"] },
  ],
  excluded: [{ cluster: "prod-east-422", reason: "it already runs 4.22.3, not older than 4.19.11" }],
  selected: 9,
  outsideScope: 0,
  failureBudget: 1,
  estimate: {
    totalMs: 3 * 3_600_000 + 20 * 60_000,
    finishesAt: "2026-12-05T04:20:00.000Z",
    waves: [
      { name: "canaries", startsAt: "2026-12-05T01:00:00.000Z", endsAt: "2026-12-05T02:30:00.000Z", waitsForWindow: true },
      { name: "wave 1", startsAt: "2026-12-05T03:00:00.000Z", endsAt: "2026-12-05T04:20:00.000Z", waitsForWindow: false },
    ],
  },
  ...over,
});

const PLAN_ARGS = ["rollout", "plan", "-f", "examples/rollout.yaml", "--dry-run"];

describe("fleetskew rollout plan", () => {
  it("sends the file as the request with the token, and prints waves, exclusions, budget and estimate (exit 0)", async () => {
    const r = await run(PLAN_ARGS, () => json(200, plan()));
    expect(r.code).toBe(EXIT.ok);
    expect(r.sent).toHaveLength(1);
    expect(r.sent[0]).toMatchObject({
      url: "https://console.example/api/v1/rollouts",
      method: "POST",
      body: { kind: "upgrade", target: "4.19.11", dryRun: true },
    });
    expect(r.sent[0]!.headers.authorization).toBe("Bearer fsk_test_token");
    expect(r.out).toBe(
      [
        "Plan (dry run: nothing saved)",
        "Selected 9 clusters: 8 in 2 waves, 1 excluded.",
        "",
        "Waves:",
        "  #  WAVE                             CLUSTERS  STARTS                          FIRST CLUSTERS",
        "  1  canaries (no failure tolerated)  1         5 Dec 2026, 01:00 UTC (window)  legacy",
        "  2  wave 1                           7         5 Dec 2026, 03:00 UTC           c-1, c-2, c-3, c-4, c-5, … (2 more)",
        "",
        "Excluded:",
        "  prod-east-422  it already runs 4.22.3, not older than 4.19.11",
        "",
        "Failure budget: 1 cluster may fail before the rollout stops.",
        "Estimate: 3 h 20 min, finishing 5 Dec 2026, 04:20 UTC.",
      ].join("\n"),
    );
  });

  it("prints the server's answer as JSON with --output json", async () => {
    const r = await run([...PLAN_ARGS, "--output", "json"], () => json(200, plan()));
    expect(JSON.parse(r.out)).toEqual(plan());
  });

  it("exits 4 with the reason when the plan writes no cluster", async () => {
    const allExcluded = await run(PLAN_ARGS, () =>
      json(200, plan({ waves: [], selected: 1, excluded: [{ cluster: "x", reason: "offline" }] })),
    );
    expect(allExcluded.code).toBe(EXIT.nothingPlanned);
    expect(allExcluded.err).toBe(
      "fleetskew: nothing planned: every one of the 1 selected cluster was excluded (reasons above); nothing would be written",
    );
    const none = await run(PLAN_ARGS, () => json(400, { error: "No cluster matches the selection", field: "selection" }));
    expect([none.code, none.err]).toEqual([EXIT.nothingPlanned, "fleetskew: nothing planned: No cluster matches the selection (400)"]);
  });

  it("exits 1 with the server's sentence when it refuses, and 2 without sending for a bad file", async () => {
    const refused = await run(PLAN_ARGS, () => json(403, { error: "This needs the technician role; vic holds viewer" }));
    expect([refused.code, refused.err]).toEqual([EXIT.failed, "fleetskew: This needs the technician role; vic holds viewer (403)"]);
    const missing = await run(["rollout", "plan", "-f", "no/such.yaml"], () => json(200, plan()));
    expect([missing.code, missing.err, missing.sent]).toEqual([EXIT.usage, "fleetskew: cannot read no/such.yaml: no such file", []]);
    const notRequest = await run(["rollout", "plan", "-f", "package.json"], () => json(200, plan()));
    expect(notRequest.code).toBe(EXIT.usage);
    expect(notRequest.err).toMatch(
      /^fleetskew: package.json is not a valid rollout request:\n  kind: must be one of upgrade, bundle, acknowledgement \(it is missing\)/,
    );
    expect(notRequest.sent).toEqual([]);
  });
});

describe("what the client refuses", () => {
  it("follows no redirect, reads only JSON, and refuses an oversized or unexpected answer", async () => {
    const redirected = await run(
      ["clusters", "list"],
      () => new Response(null, { status: 302, headers: { location: "https://elsewhere.example/steal" } }),
    );
    expect(redirected.code).toBe(EXIT.failed);
    expect(redirected.err).toMatch(/redirected to https:\/\/elsewhere\.example\/steal; give that address as --server/);
    expect(redirected.sent).toHaveLength(1);
    const html = await run(
      ["clusters", "list"],
      () => new Response("<html>sign in</html>", { status: 200, headers: { "content-type": "text/html" } }),
    );
    expect(html.err).toMatch(/answered 200 with text\/html, not JSON; is https:\/\/console\.example a Fleetskew console\?/);
    const huge = await run(
      ["clusters", "list"],
      () => new Response(`"${"x".repeat(MAX_ANSWER_BYTES)}"`, { headers: { "content-type": "application/json" } }),
    );
    expect([huge.code, huge.err]).toEqual([EXIT.failed, `fleetskew: the answer is larger than ${MAX_ANSWER_BYTES} bytes; refused`]);
    const odd = await run(["clusters", "list"], () => json(200, { clusters: "all of them" }));
    expect(odd.err).toMatch(/the server's answer was not understood \(clusters: /);
    const proxyError = await run(["clusters", "list"], () => json(502, { message: "bad gateway\n  upstream" }));
    expect([proxyError.code, proxyError.err]).toEqual([EXIT.failed, "fleetskew: the request failed (502)"]);
  });

  it("pages through the fleet with the cursor it is given, and prints one table", async () => {
    const cluster = (name: string, version: string) => ({
      id: `id-${name}`,
      name,
      displayName: name,
      labels: {},
      platform: "AWS",
      apiUrl: null,
      lastContactAt: null,
      lastContactStatus: "ok",
      lastContactError: null,
      offline: false,
      version,
      skewStatus: "blocked",
      skewSummary: null,
      enforcementMode: null,
      oldestBootImage: null,
      readinessTarget: "4.20",
      readinessStatus: "fail",
      readinessBlocker: "Admin gates",
      lastSeenAt: null,
      stale: false,
      registryLess: false,
      hubState: null,
    });
    const r = await run(["clusters", "list", "--query", "skew=blocked&platform=AWS"], (sent) =>
      new URL(sent.url).searchParams.get("after")
        ? json(200, { clusters: [cluster("b-cluster", "4.19.8")], total: 2, next: null })
        : json(200, { clusters: [cluster("a", "4.19.10")], total: 2, next: "cursor-1" }),
    );
    expect(r.code).toBe(EXIT.ok);
    expect(r.sent.map((s) => s.url)).toEqual([
      "https://console.example/api/v1/clusters?skew=blocked&platform=AWS&limit=1000",
      "https://console.example/api/v1/clusters?skew=blocked&platform=AWS&limit=1000&after=cursor-1",
    ]);
    expect(r.out).toBe(
      [
        "NAME       VERSION  PLATFORM  SKEW     READINESS      BLOCKER",
        "a          4.19.10  AWS       blocked  fail for 4.20  Admin gates",
        "b-cluster  4.19.8   AWS       blocked  fail for 4.20  Admin gates",
        "2 clusters.",
      ].join("\n"),
    );
    const paging = await run(["clusters", "list", "--query", "limit=5"], () => json(200, {}));
    expect([paging.code, paging.err]).toEqual([EXIT.usage, "fleetskew: --query: leave limit out; the command reads every page"]);
  });

  it("will not send a token over plain http to another host, nor to a URL with a path", async () => {
    const http = await run(["clusters", "list"], () => json(200, {}), { FLEETSKEW_URL: "http://console.example" });
    expect([http.code, http.err, http.sent]).toEqual([
      EXIT.usage,
      "fleetskew: refusing to send the token over plain http to console.example; use https, or --allow-http if this network is trusted",
      [],
    ]);
    const local = await run(["rollout", "status", "3"], () => json(404, { error: "No rollout 3" }), {
      FLEETSKEW_URL: "http://127.0.0.1:3000",
    });
    expect([local.code, local.err, local.sent[0]!.url]).toEqual([
      EXIT.failed,
      "fleetskew: No rollout 3 (404)",
      "http://127.0.0.1:3000/api/v1/rollouts/3",
    ]);
    const withPath = await run(["clusters", "list"], () => json(200, {}), { FLEETSKEW_URL: "https://console.example/api" });
    expect(withPath.err).toBe("fleetskew: --server is the console's address alone (https://console.example), without a path");
    const both = await run(["clusters", "list"], () => json(200, {}), { FLEETSKEW_SESSION: "a".repeat(43) });
    expect(both.err).toBe("fleetskew: give a token or FLEETSKEW_SESSION, not both");
  });
});

describe("rollout status", () => {
  it("exits 3 for a rollout that was aborted or ended with failed clusters, 0 otherwise", () => {
    expect(statusExitCode({ status: "aborted", failed: 0 })).toBe(EXIT.rolloutFailed);
    expect(statusExitCode({ status: "completed", failed: 2 })).toBe(EXIT.rolloutFailed);
    expect(statusExitCode({ status: "paused", failed: 1 })).toBe(EXIT.rolloutFailed);
    expect(statusExitCode({ status: "paused", failed: 0 })).toBe(EXIT.ok);
    expect(statusExitCode({ status: "completed", failed: 0 })).toBe(EXIT.ok);
    expect(statusExitCode({ status: "awaiting-approval", failed: 0 })).toBe(EXIT.ok);
  });

  it("watches while the rollout runs on its own, and stops where it ends or waits for a person", () => {
    expect(watchEnds({ status: "running", awaitingRelease: null })).toBe(false);
    expect(watchEnds({ status: "running", awaitingRelease: 1 })).toBe(true);
    for (const status of ["awaiting-approval", "paused", "completed", "aborted"] as const)
      expect(watchEnds({ status, awaitingRelease: null })).toBe(true);
  });
});

describe("a plan in words", () => {
  it("says why nothing is planned: no cluster within reach, or every one excluded", () => {
    expect(nothingPlanned(plan({ waves: [], selected: 0, excluded: [] }) as never)).toMatch(
      /^the selection matches no cluster within your reach/,
    );
    const text = formatPlan(plan({ waves: [], selected: 0, excluded: [] }) as never, "Plan");
    expect(text).not.toContain("Estimate");
    expect(text).toMatch(/Nothing planned: the selection matches no cluster within your reach/);
  });

  it("counts the selected clusters outside the planner's scope without naming them", () => {
    const text = formatPlan(plan({ outsideScope: 3 }) as never, "Plan");
    expect(text).toContain("Outside your scope: 3 selected clusters, left out.");
    expect(formatPlan(plan() as never, "Plan")).not.toContain("Outside your scope");
  });
});
