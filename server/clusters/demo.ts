import type { ClusterCredentials } from "../kube/credentials";
import type { DemoFleet } from "../simulator/demo";
import { countClusters, findClusterSummary, insertCluster, updateCluster } from "../store/clusters";
import { sealCredentials } from "./registration";

/** Demo clusters carry this label; a console with only these counts as unconfigured. */
export const DEMO_LABEL: [string, string] = ["fleetskew.io/demo", "true"];

/** The simulated hub of `FLEETSKEW_DEMO_HUB=1`; its clusters carry its name under fleetskew.io/hub. */
export const DEMO_HUB = "demo-hub";

export const countRealClusters = () => countClusters({ excludeLabels: [DEMO_LABEL, ["fleetskew.io/hub", DEMO_HUB]] });

/**
 * Registers the demo fleet's clusters (first start) or points them at where the simulator serves
 * now. They are contacted once the console runs (server/runtime/background.ts).
 */
export async function registerDemoFleet(demo: DemoFleet): Promise<number> {
  let registered = 0;
  for (const spec of demo.specs) {
    const credentials: ClusterCredentials = {
      server: `${demo.sim.url}/clusters/${spec.name}`,
      token: spec.token,
      certificateAuthority: demo.sim.ca,
      insecureSkipTlsVerify: false,
    };
    const existing = await findClusterSummary(spec.name);
    if (!existing) {
      await insertCluster(
        {
          name: spec.name,
          displayName: spec.name,
          labels: { [DEMO_LABEL[0]]: DEMO_LABEL[1] },
          platform: null,
          apiUrl: credentials.server,
          encryptedCredentials: await sealCredentials(spec.name, credentials),
        },
        { actor: null, details: { reason: "demo fleet" } },
      );
      registered++;
    } else if (existing.labels[DEMO_LABEL[0]] === DEMO_LABEL[1] && existing.apiUrl !== credentials.server) {
      await updateCluster(
        spec.name,
        { apiUrl: credentials.server, encryptedCredentials: await sealCredentials(spec.name, credentials) },
        { actor: null, details: { reason: "demo fleet moved" } },
      );
    }
  }
  return registered;
}
