import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The one OpenShift API call the console makes behind oauth-proxy, served for tests:
 * GET /apis/user.openshift.io/v1/users/~ with a bearer token answers that token's User, its
 * `groups` those of the authenticated user (as openshift/oauth-apiserver's REST.Get for "~" does);
 * an unknown token gets 401. Tests hand out tokens and change groups.
 */
export type OpenShiftUsersApi = {
  url: string;
  /** token → the user it authenticates and their groups now. */
  tokens: Map<string, { name: string; groups: string[] }>;
  requests: () => number;
  close(): Promise<void>;
};

export async function startOpenShiftUsersApi(host = "127.0.0.1"): Promise<OpenShiftUsersApi> {
  const tokens = new Map<string, { name: string; groups: string[] }>();
  let count = 0;
  const server = http.createServer((req, res) => {
    count++;
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const user = token ? tokens.get(token) : undefined;
    if (req.url !== "/apis/user.openshift.io/v1/users/~") return void res.writeHead(404).end();
    if (!user) return void res.writeHead(401, { "content-type": "application/json" }).end('{"kind":"Status","code":401}');
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        kind: "User",
        apiVersion: "user.openshift.io/v1",
        metadata: { name: user.name, uid: `uid-${user.name}` },
        identities: [],
        groups: [...user.groups, "system:authenticated", "system:authenticated:oauth"],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    tokens,
    requests: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
