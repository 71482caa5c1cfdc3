import { stringify } from "yaml";
import type { SimCluster } from "./cluster";

/** A kubeconfig with one context per cluster: server = the cluster's prefix URL, user = its token. */
export function kubeconfigFor(clusters: SimCluster[], baseUrl: string, ca: string, options: { readOnly?: boolean } = {}): string {
  const entries = clusters.map((c) => ({
    name: c.name,
    server: `${baseUrl}/clusters/${c.name}`,
    token: options.readOnly ? c.spec.readOnlyToken : c.spec.token,
  }));
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: entries.map((e) => ({
      name: e.name,
      cluster: { server: e.server, "certificate-authority-data": Buffer.from(ca).toString("base64") },
    })),
    users: entries.map((e) => ({ name: `${e.name}-user`, user: { token: e.token } })),
    contexts: entries.map((e) => ({ name: e.name, context: { cluster: e.name, user: `${e.name}-user` } })),
    "current-context": entries[0]?.name ?? "",
  });
}
