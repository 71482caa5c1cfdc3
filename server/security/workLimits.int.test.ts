import { actorFor } from "../auth/actor";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { GET as healthRoute } from "@/app/api/health/route";
import { POST as fleetPreviewRoute } from "@/app/api/v1/preview/route";
import { addUser } from "../auth/users";
import { WORK_LIMITS } from "../domain/workLimits";
import type { Fleet } from "../simulator/cluster";
import type { SimulatorServer } from "../simulator/http";
import { startTestSimulator } from "../simulator/testing";
import { createUser } from "../store/users";
import { useMigratedDatabase } from "../testing/database";
import { registerSimulatedClusters } from "../testing/fleet";
import { request, signIn } from "../testing/routes";
import { workLimiter } from "./workLimiter";

/**
 * One viewer sends many fleet previews at once, each reading a slow cluster: the console runs as
 * many as one person may and refuses the rest at once with 429 and Retry-After, and keeps
 * answering /api/health meanwhile.
 */
process.env.FLEETSKEW_SECRET_KEY = randomBytes(32).toString("base64");
useMigratedDatabase();

let sim: SimulatorServer;
let fleet: Fleet;
let viewer: string;
let otherViewer: string;
const LATENCY_MS = 400;

const machineConfig = stringify({
  apiVersion: "machineconfiguration.openshift.io/v1",
  kind: "MachineConfig",
  metadata: { name: "99-worker-chrony", labels: { "machineconfiguration.openshift.io/role": "worker" } },
  spec: {
    config: {
      ignition: { version: "3.5.0" },
      storage: {
        files: [{ path: "/etc/chrony.conf", mode: 420, overwrite: true, contents: { source: "data:,server%20ntp.example.com" } }],
      },
    },
  },
});

const preview = async (cookie: string) => {
  const response = await fleetPreviewRoute(
    request("/api/v1/preview", { method: "POST", cookie, body: { machineConfig, clusters: ["prod-east"] } }),
  );
  const body = (await response.json()) as { error?: string };
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body };
};

beforeAll(async () => {
  const started = await startTestSimulator();
  sim = started.sim;
  fleet = started.fleet;
  await registerSimulatedClusters(
    sim,
    fleet.list().filter((c) => c.name === "prod-east"),
  );
  const admin = await createUser({ username: "root", role: "admin", passwordHash: "scrypt$unused" }, { actor: null });
  for (const username of ["vera", "otto"])
    await addUser({ username, role: "viewer", password: "a password of twelve" }, actorFor(admin, null));
  viewer = await signIn("vera", "a password of twelve");
  otherViewer = await signIn("otto", "a password of twelve");
  // Every request to the cluster waits: a preview reads several kinds, so it takes seconds.
  fleet.setFaults("prod-east", { latencyMs: LATENCY_MS });
});
afterAll(() => sim.close());

describe("expensive work from one person", () => {
  it("runs the person's share of twelve concurrent fleet previews, refuses the rest with 429 and Retry-After, and /api/health answers meanwhile", async () => {
    const settled: string[] = [];
    const previews = Array.from({ length: 12 }, () =>
      preview(viewer).then((answer) => {
        settled.push(`preview ${answer.status}`);
        return answer;
      }),
    );
    // Once the refusals are in, the admitted previews are still reading the slow cluster.
    while (settled.length < 12 - WORK_LIMITS.preview.perPerson) await new Promise((r) => setTimeout(r, 20));
    expect(workLimiter().runningNow("preview")).toBe(WORK_LIMITS.preview.perPerson);

    const started = performance.now();
    const health = await healthRoute(request("/api/health"));
    const healthMs = performance.now() - started;
    settled.push(`health ${health.status}`);
    // Another person is not held up by this one's limit.
    const other = await preview(otherViewer);
    settled.push(`other ${other.status}`);

    const answers = await Promise.all(previews);
    const refused = answers.filter((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(WORK_LIMITS.preview.perPerson);
    expect(refused).toHaveLength(12 - WORK_LIMITS.preview.perPerson);
    for (const answer of refused) {
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(answer.body.error).toMatch(
        /^You already have 2 previews running, the most one person may run at once; .* try again in about \d+ s$/,
      );
    }
    expect(health.status).toBe(200);
    expect(other.status).toBe(200);
    // Health answered before the admitted previews finished: it did not wait behind them.
    expect(settled.indexOf("health 200")).toBeLessThan(settled.lastIndexOf("preview 200"));
    console.log(`/api/health answered in ${healthMs.toFixed(0)} ms with ${WORK_LIMITS.preview.perPerson} previews running`);

    // All slots are given back: the same person may preview again, and Retry-After now follows how long previews took.
    expect(workLimiter().runningNow("preview")).toBe(0);
    const again = await preview(viewer);
    expect(again.status).toBe(200);
  });
});
