/**
 * The security suite: each attack of issue "Hostile input" tried against a real console (its own,
 * e2e/console.ts: real Postgres, runtime role, real HTTP), asserting the safe outcome.
 */
import http from "node:http";
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, runStart, startConsole, type StartedConsole } from "./console";

test.describe.configure({ mode: "serial" });

let app: StartedConsole;
const VIEWER = { username: "sec-viewer", password: "viewer password 12", role: "viewer" };
const ROLE = "machineconfiguration.openshift.io/role";

/** A request as a browser behind the trusted proxy would make it: the proxy appended `address`. */
async function call(
  pathname: string,
  init: { method?: string; body?: unknown; cookie?: string; address?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { origin: app.url, "x-forwarded-for": init.address ?? "192.0.2.10", ...init.headers };
  if (init.cookie) headers.cookie = init.cookie;
  if (init.body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${app.url}${pathname}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    redirect: "manual",
  });
}

async function signIn(username: string, password: string, address?: string): Promise<string> {
  const response = await call("/api/v1/session", { body: { username, password }, address });
  expect(response.status).toBe(200);
  return response.headers.get("set-cookie")!.split(";")[0]!;
}

const machineConfig = (name: string, files: unknown[]) =>
  JSON.stringify({
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata: { name, labels: { [ROLE]: "worker" } },
    spec: { config: { ignition: { version: "3.5.0" }, storage: { files } } },
  });

/** Runs `work` while sampling the console's resident memory; returns the growth over its start, in MiB. */
async function memoryGrowth(work: () => Promise<void>): Promise<number> {
  const base = app.rssMiB();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, app.rssMiB())), 10);
  try {
    await work();
    await new Promise((r) => setTimeout(r, 200));
  } finally {
    clearInterval(timer);
  }
  return peak - base;
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  app = await startConsole();
  const admin = await signIn("admin", app.adminPassword);
  expect((await call("/api/v1/users", { body: VIEWER, cookie: admin })).status).toBe(201);
  const kubeconfig = readFileSync(process.env.FLEETSKEW_E2E_KUBECONFIG!, "utf8");
  const registered = await call("/api/v1/clusters", {
    body: { name: "prod-east", source: { type: "kubeconfig", kubeconfig, context: "prod-east" } },
    cookie: admin,
  });
  expect(registered.status).toBe(201);
});

test.afterAll(async () => {
  await app?.stop();
});

test("the console migrated as the owner and serves as a runtime role, without a warning", () => {
  expect(app.log()).toContain(`the console connects as "${app.runtimeRole}", which may only append to the audit log`);
  expect(app.log()).not.toMatch(/warning:/);
});

test("a viewer previewing 00-worker with no files sees paths and verdicts, never the contents of the pool's files", async () => {
  const viewer = await signIn(VIEWER.username, VIEWER.password);
  const response = await call("/api/v1/clusters/prod-east/preview", {
    body: { machineConfig: machineConfig("00-worker", []) },
    cookie: viewer,
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  const body = JSON.parse(text) as {
    pools: { pool: string; verdict: string; files: { path: string; shown: string; before: unknown; after: unknown }[] }[];
  };
  const files = body.pools.flatMap((p) => p.files);
  expect(files.map((f) => f.path)).toContain("/etc/containers/policy.json");
  expect(files.every((f) => f.shown === "none" && f.before === null && f.after === null)).toBe(true);
  expect(body.pools.every((p) => p.verdict.length > 0)).toBe(true);
  // Nothing of the files' text anywhere in the answer (policy.json's and the sysctl file's contents).
  expect(text).not.toMatch(/insecureAcceptAnything|max_user_watches|\[keyfile\]/);

  // An admin may read them.
  const admin = await signIn("admin", app.adminPassword);
  const adminView = await (
    await call("/api/v1/clusters/prod-east/preview", { body: { machineConfig: machineConfig("00-worker", []) }, cookie: admin })
  ).text();
  expect(adminView).toMatch(/insecureAcceptAnything/);
});

test("the configuration kept for offline previews is sealed at rest", async () => {
  const client = new pg.Client({ connectionString: app.ownerUrl });
  await client.connect();
  try {
    // The collector keeps it after its first sweep of prod-east.
    await expect
      .poll(
        async () => (await client.query(`SELECT count(*)::int AS n FROM "ClusterPreviewInputs" WHERE "sealed" IS NOT NULL`)).rows[0].n,
        {
          timeout: 60_000,
        },
      )
      .toBe(1);
    const { rows } = await client.query(`SELECT "objects", encode("sealed", 'escape') AS sealed FROM "ClusterPreviewInputs"`);
    expect(rows[0].objects).toBeNull();
    expect(rows[0].sealed).not.toMatch(/MachineConfig|policy\.json/);
  } finally {
    await client.end();
  }
});

test("a stranger's 400 MB chunked POST to /api/v1/session gets 413 and the console's memory grows by less than 150 MiB", async () => {
  let status = 0;
  let sent = 0;
  const growth = await memoryGrowth(
    () =>
      new Promise<void>((resolve) => {
        const url = new URL(app.url);
        const request = http.request({
          host: url.hostname,
          port: url.port,
          path: "/api/v1/session",
          method: "POST",
          headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
        });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        let answered = false;
        request.on("response", (response) => {
          status = response.statusCode ?? 0;
          answered = true;
          response.resume();
          response.on("end", resolve);
        });
        request.on("error", () => (answered ? undefined : resolve()));
        const pump = () => {
          while (sent < 400 * 1024 * 1024 && !answered) {
            sent += chunk.length;
            if (!request.write(chunk)) return void request.once("drain", pump);
          }
          request.end();
        };
        pump();
      }),
  );
  expect(status).toBe(413);
  expect(growth).toBeLessThan(150);
  // It stopped reading long before the end.
  expect(sent).toBeLessThan(100 * 1024 * 1024);
});

test("a viewer's 400 KB MachineConfig holding a gzip bomb of 300 MB gets a 4xx within 5 s, and memory grows by less than 300 MiB", async () => {
  const viewer = await signIn(VIEWER.username, VIEWER.password);
  const bomb = gzipSync(Buffer.alloc(300 * 1024 * 1024), { level: 9 });
  const document = machineConfig("99-worker-bomb", [
    { path: "/etc/bomb", mode: 420, contents: { compression: "gzip", source: `data:;base64,${bomb.toString("base64")}` } },
  ]);
  expect(document.length).toBeLessThan(450 * 1024);
  let response: Response | undefined;
  const started = Date.now();
  const growth = await memoryGrowth(async () => {
    response = await call("/api/v1/clusters/prod-east/preview", { body: { machineConfig: document }, cookie: viewer });
  });
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(response!.status).toBe(413);
  expect((await response!.json()).error).toBe("The MachineConfig: file /etc/bomb inflates to more than 8 MiB, the limit for one file");
  expect(growth).toBeLessThan(300);

  // Aliases and repeated cluster names do not multiply it: one cluster is previewed once.
  const fleet = await call("/api/v1/preview", {
    body: {
      machineConfig: machineConfig("99-worker-x", [{ path: "/etc/x", contents: { source: "data:,x" } }]),
      clusters: Array(1000).fill("prod-east"),
    },
    cookie: viewer,
  });
  expect(fleet.status).toBe(200);
  expect((await fleet.json()).clusters).toHaveLength(1);
});

test("of 40 wrong passwords for one username sent at once, at most 5 are judged", async () => {
  const responses = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      call("/api/v1/session", { body: { username: "admin", password: `wrong guess ${i}` }, address: "198.51.100.40" }),
    ),
  );
  const statuses = responses.map((r) => r.status);
  const judged = statuses.filter((s) => s === 401).length;
  expect(judged).toBeGreaterThanOrEqual(1);
  expect(judged).toBeLessThanOrEqual(5);
  expect(statuses.filter((s) => s === 429)).toHaveLength(40 - judged);
  const refused = responses.find((r) => r.status === 429)!;
  expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
});

test("30 failed sign-ins from one address lock out nobody else behind it, and add one audit event, not thirty", async () => {
  const countEvents = async () => {
    const client = new pg.Client({ connectionString: app.ownerUrl });
    await client.connect();
    try {
      return (await client.query(`SELECT count(*)::int AS n FROM "AuditEvent" WHERE "ip" = '203.0.113.30' AND "outcome" <> 'success'`))
        .rows[0].n as number;
    } finally {
      await client.end();
    }
  };
  const before = await countEvents();
  // The client claims another address; the proxy appended the real one, which is what counts.
  for (let i = 0; i < 30; i++) {
    const response = await call("/api/v1/session", {
      body: { username: `guess-${i % 10}`, password: "wrong password!" },
      headers: { "x-forwarded-for": "10.9.9.9, 203.0.113.30" },
    });
    expect([401, 429]).toContain(response.status);
  }
  expect((await countEvents()) - before).toBe(1);
  // Everyone else behind that address still signs in.
  await signIn(VIEWER.username, VIEWER.password, "203.0.113.30");
  await signIn("admin", app.adminPassword, "203.0.113.30");
  // And the address the client claimed was never blamed.
  const admin = await signIn("admin", app.adminPassword);
  const locks = (await (await call("/api/v1/sign-in-locks", { cookie: admin })).json()).locks as { ip: string }[];
  expect(locks.some((l) => l.ip === "10.9.9.9")).toBe(false);
  expect(locks.some((l) => l.ip === "203.0.113.30")).toBe(true);
});

test("the runtime role cannot UPDATE, DELETE, TRUNCATE or ALTER the audit log, or drop its trigger", async () => {
  const client = new pg.Client({ connectionString: app.runtimeUrl });
  await client.connect();
  try {
    expect((await client.query(`SELECT current_user AS role`)).rows[0].role).toBe(app.runtimeRole);
    await client.query(`INSERT INTO "AuditEvent" ("action", "summary") VALUES ('test.append', 'appended by the runtime role')`);
    expect((await client.query(`SELECT count(*)::int AS n FROM "AuditEvent" WHERE "action" = 'test.append'`)).rows[0].n).toBe(1);
    for (const statement of [
      `UPDATE "AuditEvent" SET "summary" = 'rewritten'`,
      `DELETE FROM "AuditEvent"`,
      `TRUNCATE "AuditEvent"`,
      `ALTER TABLE "AuditEvent" DISABLE TRIGGER "AuditEvent_append_only"`,
      `ALTER TABLE "AuditEvent" ADD COLUMN "forged" text`,
      `DROP TRIGGER "AuditEvent_append_only" ON "AuditEvent"`,
    ]) {
      await expect(client.query(statement), statement).rejects.toMatchObject({ code: "42501" });
    }
  } finally {
    await client.end();
  }
});

test("after signing in, /login?next=/%5Cevil.example/x stays on the console's origin in Chromium", async ({ page }) => {
  const foreign: string[] = [];
  await page.route(
    (url) => url.hostname.endsWith("evil.example"),
    (route) => {
      foreign.push(route.request().url());
      return route.abort();
    },
  );
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  for (const next of ["/%5Cevil.example/x", "/%09/evil.example", "//evil.example/x", "/.//evil.example/x", "https://evil.example/"]) {
    await page.goto("about:blank");
    await page.context().clearCookies();
    await page.goto(`${app.url}/login?next=${next}`);
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill(app.adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname !== "/login");
    expect(new URL(page.url()).origin, next).toBe(app.url);
    expect(new URL(page.url()).pathname, next).toBe("/fleet");
  }
  // A same-origin path is followed.
  await page.goto("about:blank");
  await page.context().clearCookies();
  await page.goto(`${app.url}/login?next=${encodeURIComponent("/preview?x=1")}`);
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password").fill(app.adminPassword);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${app.url}/preview?x=1`);
  expect(foreign).toEqual([]);
  expect(violations).toEqual([]);
});

test("a sign-in submitted before the page's scripts run never puts the password in the URL", async ({ browser }) => {
  // The same as a click before React hydrates the form: the browser submits it as plain HTML.
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const sent: { method: string; url: string; status?: number }[] = [];
  page.on("request", (r) => void sent.push({ method: r.method(), url: r.url() }));
  page.on("response", (r) => {
    const entry = sent.find((e) => e.url === r.url() && e.status === undefined);
    if (entry) entry.status = r.status();
  });
  try {
    await page.goto(`${app.url}/login`);
    await page.getByLabel("Username").fill(VIEWER.username);
    await page.getByLabel("Password").fill(VIEWER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => sent.filter((e) => e.method === "POST").length).toBe(1);
    await page.waitForLoadState("load");
    const post = sent.find((e) => e.method === "POST")!;
    expect(new URL(post.url).pathname).toBe("/login");
    expect(post.status).toBeLessThan(500);
    for (const { url } of sent) {
      expect(url).not.toContain("password");
      expect(url).not.toContain(encodeURIComponent(VIEWER.password));
    }
  } finally {
    await context.close();
  }
});

test("pages run only scripts carrying the response's nonce; behind https the console sends HSTS and a __Host- Secure cookie", async () => {
  const page = await call("/login");
  const policy = page.headers.get("content-security-policy")!;
  const nonce = /'nonce-([^']+)'/.exec(policy)![1]!;
  expect(policy).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
  expect(policy).toContain("frame-ancestors 'none'");
  const html = await page.text();
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  expect(scripts.length).toBeGreaterThan(0);
  expect(scripts.every((tag) => tag.includes(`nonce="${nonce}"`))).toBe(true);
  expect(page.headers.get("strict-transport-security")).toBeNull();
  // A second page gets another nonce.
  expect((await call("/login")).headers.get("content-security-policy")).not.toBe(policy);

  const https = { "x-forwarded-proto": "https", origin: app.url.replace("http:", "https:") };
  expect((await call("/login", { headers: https })).headers.get("strict-transport-security")).toBe("max-age=31536000");
  const signedIn = await call("/api/v1/session", { body: { username: VIEWER.username, password: VIEWER.password }, headers: https });
  expect(signedIn.status).toBe(200);
  expect(signedIn.headers.get("set-cookie")).toMatch(
    /^__Host-fleetskew_session=[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Expires=.*; Secure$/,
  );
});

test("a keep-alive connection left idle for 6 s carries the next request, rather than being reset as it is sent", async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(app.url);
  const get = () =>
    new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
      const request = http.get({ host: url.hostname, port: url.port, path: "/api/health", agent }, (response) => {
        response.resume();
        response.on("end", () => resolve({ status: response.statusCode ?? 0, reused: request.reusedSocket }));
      });
      request.on("error", reject);
    });
  try {
    expect((await get()).status).toBe(200);
    // Past Node's default of 5 s, after which the server would have closed the connection.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(await get()).toEqual({ status: 200, reused: true });
  } finally {
    agent.destroy();
  }
});

test("a missing key file while sealed credentials exist stops the start with one line, instead of making a new key", async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "fleetskew-security-nokey-"));
  try {
    const port = await freePort();
    const attempt = runStart({
      PORT: String(port),
      FLEETSKEW_DATA_DIR: dataDir,
      FLEETSKEW_DEMO: "0",
      DATABASE_URL: app.runtimeUrl,
      FLEETSKEW_MIGRATION_DATABASE_URL: app.ownerUrl,
    });
    const error = await attempt.then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/exited \(1\)/);
    expect(error?.message).toMatch(
      /fleetskew: the database holds 1 sealed cluster credential\(s\), but there is no secret key: .*secret\.key is missing and FLEETSKEW_SECRET_KEY is not set/,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
