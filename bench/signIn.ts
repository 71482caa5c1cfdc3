/** Signing in as the admin through the real session route, for benchmarks that read through route handlers. */
import { POST as loginRoute } from "../app/api/v1/session/route";
import { ensureInitialAccounts } from "../server/auth/bootstrap";
import { appConfig } from "../server/config/current";
import { CLIENT_IP_HEADER } from "../server/http/request";

export const BENCH_ORIGIN = "http://127.0.0.1:3000";

/** Creates the admin account with `password` (the data directory's first start) and returns the session cookie. */
export async function signInAsAdmin(password: string): Promise<string> {
  await ensureInitialAccounts({ dataDir: appConfig().dataDir, adminPassword: password, demo: false });
  const response = await loginRoute(
    new Request(`${BENCH_ORIGIN}/api/v1/session`, {
      method: "POST",
      headers: { host: "127.0.0.1:3000", origin: BENCH_ORIGIN, [CLIENT_IP_HEADER]: "127.0.0.1", "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password }),
    }),
  );
  if (response.status !== 200) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  return response.headers.get("set-cookie")!.split(";")[0]!;
}
