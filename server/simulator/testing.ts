import https from "node:https";
import { Fleet, type ClusterSpec } from "./cluster";
import { startSimulator, type SimulatorServer } from "./http";
import { prodEast422Objects, prodEastObjects } from "./scenarios/prodEast";

/** A small fleet for tests: the reference cluster, its 4.22 projection, and an older 4.16 cluster. */
export function testFleetSpecs(): ClusterSpec[] {
  return [
    { name: "prod-east", ocpVersion: "4.19.10", token: "prod-east-token", readOnlyToken: "prod-east-reader", objects: prodEastObjects },
    {
      name: "prod-east-422",
      ocpVersion: "4.22.3",
      token: "prod-east-422-token",
      readOnlyToken: "prod-east-422-reader",
      objects: prodEast422Objects,
    },
    {
      name: "legacy",
      ocpVersion: "4.16.30",
      token: "legacy-token",
      readOnlyToken: "legacy-reader",
      forbidden: [{ verb: "list", resource: "nodes", group: "" }],
      objects: () =>
        prodEastObjects().filter((o) => !["MachineConfigNode", "PinnedImageSet", "MachineOSConfig", "MachineOSBuild"].includes(o.kind!)),
    },
  ];
}

export async function startTestSimulator(): Promise<{ fleet: Fleet; sim: SimulatorServer }> {
  const fleet = new Fleet();
  for (const spec of testFleetSpecs()) fleet.add(spec);
  return { fleet, sim: await startSimulator(fleet) };
}

/** A raw https request to the simulator, trusting its CA; for what the typed client hides (headers). */
export function rawRequest(
  sim: SimulatorServer,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${sim.url}${path}`, { method: init.method ?? "GET", headers: init.headers, ca: sim.ca }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    if (init.timeoutMs) req.setTimeout(init.timeoutMs, () => req.destroy(new Error(`timeout after ${init.timeoutMs} ms`)));
    req.on("error", reject);
    req.end(init.body);
  });
}

/** Marks a simulated pool Degraded (or healthy again) in its status, as the MCO reports a node it cannot update. */
export function setPoolDegraded(fleet: Fleet, cluster: string, pool: string, degraded: boolean): void {
  const c = fleet.get(cluster)!;
  const info = c.kindFor({ apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfigPool" })!;
  const current = c.store.get(info, undefined, pool) as { status: { conditions?: { type: string }[] } };
  const conditions = [
    ...(current.status.conditions ?? []).filter((x) => x.type !== "Degraded"),
    { type: "Degraded", status: degraded ? "True" : "False", reason: "", message: "", lastTransitionTime: new Date().toISOString() },
  ];
  c.store.replace(info, undefined, pool, { ...current, status: { ...current.status, conditions } } as never, "status");
}
