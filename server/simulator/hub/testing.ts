import * as k8s from "@kubernetes/client-node";
import https from "node:https";

/** A client configuration for `server` (the hub API, or the proxy URL plus `/<cluster>`) trusting `ca`. */
export function clientConfig(server: string, ca: string, token: string): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server, caData: Buffer.from(ca).toString("base64") }],
    users: [{ name: "u", token }],
    contexts: [{ name: "c", cluster: "c", user: "u" }],
    currentContext: "c",
  });
  return kc;
}

/** The status code and body of a failed client call. */
export async function failure(promise: Promise<unknown>): Promise<{ code: number; body: string }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: number; body: unknown };
    return { code: e.code, body: typeof e.body === "string" ? e.body : (JSON.stringify(e.body) ?? String(error)) };
  }
  throw new Error("expected the request to fail");
}

/** Polls `check` until it returns a value (not undefined) or the time is up. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Condition = { type: string; status: string; reason?: string };
export const conditionOf = (obj: unknown, type: string): Condition | undefined =>
  ((obj as { status?: { conditions?: Condition[] } })?.status?.conditions ?? []).find((c) => c.type === type);

/** A raw HTTPS GET, for what the typed client does not show (plain-text error bodies). */
export function rawGet(url: string, ca: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca, headers: token ? { authorization: `Bearer ${token}` } : {} }, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}
