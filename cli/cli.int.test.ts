import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { hashPassword } from "../server/auth/password";
import { BASE_FILES, machineConfigDoc } from "../server/domain/disruption/testing";
import { Collector } from "../server/collector/collector";
import type { SimulatorServer } from "../server/simulator/http";
import { startTestSimulator } from "../server/simulator/testing";
import { getPool } from "../server/store/db";
import { makeAllDue } from "../server/store/sweeps";
import { createUser } from "../server/store/users";
import { useMigratedDatabase } from "../server/testing/database";
import { registerSimulatedClusters, testCollectorOptions } from "../server/testing/fleet";
import { serveRoutes } from "../server/testing/routeServer";
import { signIn } from "../server/testing/routes";

/**
 * `fleetskew` run as a child process, as a pipeline runs it, against the console's route handlers
 * served over HTTP, real Postgres and the simulated fleet swept by the real collector.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

const root = path.resolve(__dirname, "..");

let sim: SimulatorServer;
let console_: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  let fleet;
  ({ fleet, sim } = await startTestSimulator());
  await registerSimulatedClusters(sim, fleet.list());
  for (const [username, scope] of [
    ["tina", ""],
    // A technician over one 4.22 cluster only: the example's 4.19 selection is outside it.
    ["nora", "name=prod-east-422"],
  ] as const)
    await createUser(
      {
        username,
        role: "technician",
        passwordHash: await hashPassword(`${username} password for tests`),
        grants: [{ role: "technician", scope }],
      },
      { actor: null },
    );
  await makeAllDue();
  await new Collector(testCollectorOptions("test")).runOnce();
  console_ = await serveRoutes();
});
afterAll(async () => {
  await console_?.close();
  await sim?.close();
});

/** Runs `node bin/fleetskew.mjs …` (async: the console answering it runs in this process). */
function fleetskew(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, "bin/fleetskew.mjs"), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", FLEETSKEW_URL: console_.url, ...env },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 25_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

const sessionOf = async (username: string) => (await signIn(username, `${username} password for tests`)).replace(/^fleetskew_session=/, "");
const rollouts = async () => Number((await getPool().query(`SELECT count(*) FROM "Rollout"`)).rows[0].count);

async function tokenFor(username: string, over: Record<string, unknown> = {}): Promise<string> {
  const response = await fetch(`${console_.url}/api/v1/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: `fleetskew_session=${await sessionOf(username)}` },
    body: JSON.stringify({ name: `ci-${username}-${randomBytes(3).toString("hex")}`, expiresInDays: 1, ...over }),
  });
  expect(response.status).toBe(201);
  const { token } = (await response.json()) as { token: string };
  expect(token).toMatch(/^fsk_/);
  return token;
}

describe("fleetskew rollout plan -f examples/rollout.yaml --dry-run", () => {
  it("prints the waves, the excluded clusters and the estimate with a technician's token, saving nothing", async () => {
    const r = await fleetskew(["rollout", "plan", "-f", "examples/rollout.yaml", "--dry-run"], {
      FLEETSKEW_TOKEN: await tokenFor("tina"),
    });
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Plan \(dry run: nothing saved\)\nSelected 2 clusters: 2 in 2 waves, 0 excluded\./);
    expect(r.out).toMatch(/ 1 +canaries \(no failure tolerated\) +1 .*legacy\n/);
    expect(r.out).toMatch(/ 2 +wave 1 +1 .*prod-east\n/);
    expect(r.out).toContain("Failure budget: 1 cluster may fail before the rollout stops.");
    expect(r.out).toMatch(/Estimate: .+, finishing .+ UTC\./);
    expect(await rollouts()).toBe(0);
  });

  // A scoped planner with nothing of the selection in scope is refused (403, exit 1) naming the scope, whether or
  // not the selection matches clusters elsewhere: the answer tells them nothing about clusters outside it.
  it("exits non-zero with the reason when the token's scope covers none of the selection", async () => {
    const narrowed = await fleetskew(["rollout", "plan", "-f", "examples/rollout.yaml", "--dry-run"], {
      FLEETSKEW_TOKEN: await tokenFor("tina", { scope: "name=prod-east-422" }),
    });
    expect(narrowed.code).toBe(1);
    expect(narrowed.err).toBe("fleetskew: None of the selected clusters is in your scope: technician@name=prod-east-422 (403)\n");
    const ofNora = await fleetskew(["rollout", "plan", "-f", "examples/rollout.yaml", "--dry-run"], {
      FLEETSKEW_TOKEN: await tokenFor("nora"),
    });
    expect(ofNora.code).toBe(1);
    expect(ofNora.err).toBe("fleetskew: None of the selected clusters is in your scope: technician@name=prod-east-422 (403)\n");
    expect(ofNora.out).not.toMatch(/prod-east\b|legacy/);
  });

  it("exits non-zero with the reason for a person whose grant covers none of the selection", async () => {
    const r = await fleetskew(["rollout", "plan", "-f", "examples/rollout.yaml", "--dry-run"], {
      FLEETSKEW_SESSION: await sessionOf("nora"),
    });
    expect(r.code).toBe(1);
    expect(r.err).toBe("fleetskew: None of the selected clusters is in your scope: technician@name=prod-east-422 (403)\n");
  });

  it("refuses a revoked or unknown token with exit 1 and the server's sentence", async () => {
    const r = await fleetskew(["clusters", "list"], { FLEETSKEW_TOKEN: `fsk_${"x".repeat(40)}` });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^fleetskew: .+ \(401\)\n$/);
  });
});

describe("fleetskew with a console session (FLEETSKEW_SESSION, for local development)", () => {
  it("plans the example: waves, failure budget and estimate, exit 0, saving nothing", async () => {
    const env = { FLEETSKEW_SESSION: await sessionOf("tina") };
    const dry = await fleetskew(["rollout", "plan", "-f", "examples/rollout.yaml", "--dry-run"], env);
    expect([dry.code, dry.err]).toEqual([0, ""]);
    expect(dry.out).toMatch(/ 1 +canaries \(no failure tolerated\) +1 .*legacy\n/);
    expect(dry.out).toMatch(/ 2 +wave 1 +1 .*prod-east\n/);
    expect(await rollouts()).toBe(0);

    const json = await fleetskew(["rollout", "plan", "-f", "examples/rollout.yaml", "--dry-run", "--output", "json"], env);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out).waves.map((w: { clusters: string[] }) => w.clusters)).toEqual([["legacy"], ["prod-east"]]);
  });

  it("lists the clusters through every page, and says which flag or field is wrong with exit 2", async () => {
    const env = { FLEETSKEW_SESSION: await sessionOf("tina") };
    const list = await fleetskew(["clusters", "list", "--query", "version=4.19", "-o", "json"], env);
    expect(list.code).toBe(0);
    expect(
      JSON.parse(list.out)
        .clusters.map((c: { name: string }) => c.name)
        .sort(),
    ).toEqual(["legacy", "prod-east"]);
    const bad = await fleetskew(["clusters", "list", "--query", "version=latest"], env);
    expect([bad.code, bad.err]).toEqual([2, "fleetskew: --query: version: must be a minor version like 4.19, or unknown\n"]);
    const missing = await fleetskew(["readiness", "no-such-cluster", "--target", "4.19.11"], env);
    expect([missing.code, missing.err]).toEqual([1, "fleetskew: no cluster named no-such-cluster (404)\n"]);
    const ready = await fleetskew(["readiness", "prod-east", "--target", "4.19.11"], env);
    expect(ready.code).toBe(0);
    expect(ready.out).toMatch(/^prod-east: \w+ for 4\.19\.11 \(4\.19\.10 → 4\.19\.11, z-stream\)\n/);
  });

  // Last: the saved rollout holds its clusters, so plans after it would exclude them.
  it("saves the plan and prints where a person approves it; rollout status --watch stops there", async () => {
    const env = { FLEETSKEW_SESSION: await sessionOf("tina") };
    const saved = await fleetskew(["rollout", "plan", "-f", "examples/rollout.yaml"], env);
    expect([saved.code, saved.err]).toEqual([0, ""]);
    const [, number, id] = /^Planned rollout #(\d+) \(([0-9a-f-]{36})\)/.exec(saved.out)!;
    expect(saved.out).toContain(`It waits for approval by someone other than tina: ${console_.url}/rollouts/${id}`);
    expect(await rollouts()).toBe(1);

    // Awaiting approval is where --watch stops: a person approves in the console.
    const status = await fleetskew(["rollout", "status", number!, "--watch", "--interval", "1"], env);
    expect(status.code).toBe(0);
    expect(status.out).toMatch(/^Rollout #\d+: awaiting-approval\n/);
    expect(status.out).toContain("Clusters: 2 pending (failure budget 1, failed 0)");
  });
});

describe("fleetskew preview", () => {
  it("is npm run preview under the command's name: local files in, the node's actions out", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-cli-"));
    try {
      const from = path.join(dir, "old.yaml");
      const to = path.join(dir, "new.yaml");
      writeFileSync(from, stringify(machineConfigDoc({ files: BASE_FILES })));
      writeFileSync(
        to,
        stringify(machineConfigDoc({ files: { ...BASE_FILES, "/etc/sysctl.d/99-net.conf": "net.core.somaxconn=1024\n" } })),
      );
      const r = await fleetskew(["preview", "--from", from, "--to", to], {});
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({ actions: [{ type: "Reboot" }], reboot: true, drain: true });
      const missing = await fleetskew(["preview", "--from", path.join(dir, "none.yaml"), "--to", to], {});
      expect(missing.code).toBe(1);
      expect(JSON.parse(missing.out).error).toMatch(/^cannot read --from .*none\.yaml: no such file$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
