/**
 * The simulated ACM hub at fleet scale: 10,000 managed clusters in one process. Measures start-up,
 * resident memory, paging through every ManagedCluster and listing every ManagedClusterInfo over
 * HTTPS, and the latency of one cluster read through the simulated cluster-proxy beside the same
 * read made directly. Prints its figures.
 */
import https from "node:https";
import { startHubSimulator } from "../server/simulator/hub/server";
import { fmt, percentile, procStatus } from "./common";

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 10_000);
const SAMPLE = 400;
const CONCURRENCY = 16;

function request(
  url: string,
  ca: string,
  token: string,
  agent: https.Agent,
  body?: unknown,
): Promise<{ status: number; bytes: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: body === undefined ? "GET" : "POST",
        ca,
        agent,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      },
      (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, bytes: text.length, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
const get = (url: string, ca: string, token: string, agent: https.Agent) => request(url, ca, token, agent);

async function timedReads(urls: string[], ca: string, token: (i: number) => string): Promise<number[]> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca });
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < urls.length; i = next++) {
        const t = performance.now();
        const res = await get(urls[i]!, ca, token(i), agent);
        if (res.status !== 200) throw new Error(`${urls[i]} answered ${res.status}`);
        times.push(performance.now() - t);
      }
    }),
  );
  agent.destroy();
  return times;
}

async function main() {
  const started = performance.now();
  const sim = await startHubSimulator({ clusters: CLUSTERS, permissionDelayMs: 0 });
  const startupMs = performance.now() - started;
  const rssAfterStart = procStatus("self", "VmRSS");
  try {
    const agent = new https.Agent({ keepAlive: true, ca: sim.ca });
    let t = performance.now();
    let pages = 0;
    let items = 0;
    let token = "";
    do {
      const res = await get(
        `${sim.hubUrl}/apis/cluster.open-cluster-management.io/v1/managedclusters?limit=500${token ? `&continue=${token}` : ""}`,
        sim.ca,
        sim.tokens.reader,
        agent,
      );
      const page = JSON.parse(res.body) as { items: unknown[]; metadata: { continue?: string } };
      items += page.items.length;
      token = page.metadata.continue ?? "";
      pages++;
    } while (token);
    const pagingMs = performance.now() - t;
    t = performance.now();
    const infos = await get(
      `${sim.hubUrl}/apis/internal.open-cluster-management.io/v1beta1/managedclusterinfos`,
      sim.ca,
      sim.tokens.reader,
      agent,
    );
    const infosMs = performance.now() - t;
    agent.destroy();

    // Clusters without fault modes, read with their own token (forwarded unchanged by the proxy).
    const sample = sim.hub
      .memberNames()
      .filter((n) => sim.hub.tunnelDown(n) === null && !sim.fleet.get(n)!.spec.faults)
      .slice(0, SAMPLE);
    const tokenOf = (i: number) => sim.fleet.get(sample[i]!)!.spec.token;
    const path = "/apis/machineconfiguration.openshift.io/v1/machineconfigpools";
    await timedReads(
      sample.map((n) => `${sim.clusters.url}/clusters/${n}${path}`),
      sim.ca,
      tokenOf,
    ); // materialize
    const direct = await timedReads(
      sample.map((n) => `${sim.clusters.url}/clusters/${n}${path}`),
      sim.ca,
      tokenOf,
    );
    const proxied = await timedReads(
      sample.map((n) => `${sim.proxyUrl}/${n}${path}`),
      sim.ca,
      tokenOf,
    );

    // One ClusterPermission per cluster, as a hub source grants its proxy identity read access.
    const writer = new https.Agent({ keepAlive: true, maxSockets: 32, ca: sim.ca });
    const names = sim.hub.memberNames();
    t = performance.now();
    let nextName = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        for (let i = nextName++; i < names.length; i = nextName++) {
          const res = await request(
            `${sim.hubUrl}/apis/rbac.open-cluster-management.io/v1alpha1/namespaces/${names[i]}/clusterpermissions`,
            sim.ca,
            sim.tokens.reader,
            writer,
            {
              metadata: { name: "fleetskew" },
              spec: {
                clusterRole: {
                  rules: [{ apiGroups: ["machineconfiguration.openshift.io"], resources: ["machineconfigpools"], verbs: ["list"] }],
                },
                // On local-cluster the identity carries no cluster:hub: prefix (docs/acm.md §2).
                clusterRoleBinding: {
                  subjects: [
                    { kind: "User", name: "cluster:hub:system:serviceaccount:fleetskew:fleetskew-hub-proxy" },
                    { kind: "ServiceAccount", namespace: "fleetskew", name: "fleetskew-hub-proxy" },
                  ],
                },
              },
            },
          );
          if (res.status !== 201) throw new Error(`ClusterPermission for ${names[i]}: ${res.status} ${res.body}`);
        }
      }),
    );
    const grantMs = performance.now() - t;
    writer.destroy();
    await new Promise((r) => setTimeout(r, 50)); // the permission delay is 0: applied on the next turn
    const impersonated = await timedReads(
      sample.map((n) => `${sim.proxyUrl}/${n}${path}`),
      sim.ca,
      () => sim.tokens.proxy,
    );

    console.log(
      `hub: ${items} managed clusters (${CLUSTERS} asked), started in ${fmt(startupMs / 1000, 2)} s, RSS ${fmt(rssAfterStart, 0)} MiB after start`,
    );
    console.log(`hub: all ManagedClusters in ${pages} pages of 500: ${fmt(pagingMs, 0)} ms`);
    console.log(`hub: all ManagedClusterInfos in one list: ${fmt(infos.bytes / 1e6, 1)} MB in ${fmt(infosMs, 0)} ms`);
    const p = (v: number[], q: number) => fmt(percentile(v, q), 1);
    console.log(
      `hub: MachineConfigPool list of ${sample.length} clusters, ${CONCURRENCY} at a time — direct p50 ${p(direct, 50)} / p95 ${p(direct, 95)} ms, ` +
        `through the proxy p50 ${p(proxied, 50)} / p95 ${p(proxied, 95)} ms (ratio at p50 ${fmt(percentile(proxied, 50) / percentile(direct, 50), 2)})`,
    );
    console.log(
      `hub: ${names.length} ClusterPermissions created in ${fmt(grantMs / 1000, 1)} s (32 at a time); ` +
        `reads through the proxy as the impersonated hub identity p50 ${p(impersonated, 50)} / p95 ${p(impersonated, 95)} ms`,
    );
    console.log(`hub: peak RSS ${fmt(procStatus("self", "VmHWM"), 0)} MiB`);
  } finally {
    await sim.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
