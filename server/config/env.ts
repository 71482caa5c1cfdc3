import { ConnectToError, parseConnectTo, type ConnectTo } from "../kube/connectTo";
import path from "node:path";
import { z } from "zod";
import { readSsoConfig, SsoConfigError, type AuthProxyConfig, type OidcConfig } from "./sso";

/** Raised for configuration a person must fix; start-up prints its message as one line. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

const postgresUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "postgresql:" || url.protocol === "postgres:") && (url.hostname !== "" || url.searchParams.has("host"));
    } catch {
      return false;
    }
  }, "must look like postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE");

const port = z.coerce
  .number({ error: "must be a number" })
  .int("must be a whole number")
  .min(1, "must be between 1 and 65535")
  .max(65535, "must be between 1 and 65535");

/** An absolute http(s) URL without a path, e.g. https://fleetskew.example.com. */
const publicUrl = z
  .string()
  .trim()
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === "https:" || url.protocol === "http:") && (url.pathname === "/" || url.pathname === "");
    } catch {
      return false;
    }
  }, "must be the console's address as people open it, e.g. https://fleetskew.example.com (no path)");

const secretKey = z
  .string()
  .refine((v) => Buffer.from(v.trim(), "base64").length === 32, "must be 32 bytes in base64 (make one with: openssl rand -base64 32)");

const EnvSchema = z.object({
  DATABASE_URL: postgresUrl.optional(),
  FLEETSKEW_MIGRATION_DATABASE_URL: postgresUrl.optional(),
  PORT: port.default(3000),
  HOST: z.string().trim().min(1).default("127.0.0.1"),
  FLEETSKEW_DATA_DIR: z.string().trim().min(1).optional(),
  FLEETSKEW_ADMIN_PASSWORD: z.string().min(12, "must be at least 12 characters").optional(),
  FLEETSKEW_SESSION_TTL_HOURS: z.coerce.number().positive("must be a positive number of hours").default(12),
  FLEETSKEW_ALLOWED_ORIGINS: z.string().optional(),
  FLEETSKEW_SECRET_KEY: secretKey.optional(),
  FLEETSKEW_SECRET_KEYS_OLD: z
    .string()
    .refine(
      (v) =>
        v
          .split(",")
          .map((k) => k.trim())
          .filter(Boolean)
          .every((k) => Buffer.from(k, "base64").length === 32),
      "must be a comma-separated list of 32-byte keys in base64",
    )
    .optional(),
  FLEETSKEW_PUBLIC_URL: publicUrl.optional(),
  FLEETSKEW_TRUST_PROXY: z.enum(["0", "1", "false", "true"], { error: "must be 1 or 0" }).optional(),
  FLEETSKEW_TRUST_PROXY_HOPS: z.coerce
    .number()
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(10, "must be at most 10")
    .optional(),
  FLEETSKEW_KUBE_TIMEOUT_MS: z.coerce.number().int().min(100, "must be at least 100").max(600_000).default(10_000),
  FLEETSKEW_KUBE_RETRIES: z.coerce.number().int().min(0).max(10, "must be at most 10").default(2),
  FLEETSKEW_KUBE_WATCH_CLUSTERS: z.coerce.number().int().min(0).max(50_000, "must be at most 50000").default(1_000),
  FLEETSKEW_CONNECT_TO: z
    .string()
    .optional()
    .superRefine((text, ctx) => {
      try {
        parseConnectTo(text ?? "");
      } catch (error) {
        if (!(error instanceof ConnectToError)) throw error;
        ctx.addIssue({ code: "custom", message: error.message });
      }
    }),
  FLEETSKEW_DEMO: z.enum(["0", "1", "false", "true"], { error: "must be 1 or 0" }).optional(),
  FLEETSKEW_SWEEP_INTERVAL_SECONDS: z.coerce.number().min(1, "must be at least 1").max(86_400).default(300),
  FLEETSKEW_SWEEP_CONCURRENCY: z.coerce.number().int().min(1).max(1000, "must be at most 1000").default(32),
  FLEETSKEW_REGISTRATION_CONCURRENCY: z.coerce.number().int().min(1).max(200, "must be at most 200").default(16),
  FLEETSKEW_SWEEP_TIMEOUT_SECONDS: z.coerce.number().min(1).max(3600).default(60),
  FLEETSKEW_SHARD_LEASE_SECONDS: z.coerce.number().min(3, "must be at least 3").max(600, "must be at most 600").default(30),
  FLEETSKEW_HISTORY_RETENTION_DAYS: z.coerce.number().int().min(1, "must be at least 1 day").max(36_500).default(180),
  FLEETSKEW_HISTORY_DAILY_DAYS: z.coerce.number().int().min(1, "must be at least 1 day").max(36_500).default(1_095),
  FLEETSKEW_MIGRATE: z.enum(["0", "1", "false", "true"], { error: "must be 1 or 0" }).optional(),
  FLEETSKEW_HUB_RESYNC_SECONDS: z.coerce.number().int().min(5, "must be at least 5").max(86_400, "must be at most 86400").default(300),
  FLEETSKEW_DEMO_HUB: z.enum(["0", "1"], { error: "must be 1 or 0" }).default("0"),
  FLEETSKEW_WEB_SWEEPS: z.enum(["0", "1", "false", "true"], { error: "must be 1 or 0" }).optional(),
  FLEETSKEW_METRICS_TOKEN: z.string().trim().min(16, "must be at least 16 characters (make one with: openssl rand -hex 32)").optional(),
  FLEETSKEW_ALERTMANAGER_URL: z
    .string()
    .trim()
    .refine(
      (v) => URL.canParse(v) && ["http:", "https:"].includes(new URL(v).protocol),
      "must be an http(s) URL, e.g. http://alertmanager:9093",
    )
    .optional(),
});

export type AppConfig = {
  databaseUrl: string | undefined;
  /** The database owner's URL for migrations; DATABASE_URL is then the less privileged runtime role. */
  migrationDatabaseUrl: string | undefined;
  port: number;
  host: string;
  dataDir: string;
  adminPassword: string | undefined;
  sessionTtlHours: number;
  /** Extra origins trusted for state-changing requests, e.g. the public URL behind a proxy. */
  allowedOrigins: string[];
  /** Key for credentials at rest; when unset, the data directory's key file (generated on a first start). */
  secretKey: string | undefined;
  /** Earlier keys, still accepted for opening what they sealed until `npm run keys:reseal` has run. */
  oldSecretKeys: string[];
  /** The console's address as people open it (https turns on HSTS, Secure and __Host- cookies). */
  publicUrl: string | undefined;
  /** How many proxies in front of the console append to X-Forwarded-For (0: none is trusted). */
  trustedProxyHops: number;
  /** Per-request timeout and retries (reads only) when talking to clusters. */
  kube: { timeoutMs: number; retries: number; connectTo: ConnectTo[]; watchClusters: number };
  /** Connection tests of a bulk registration run at once per process. */
  registrationConcurrency: number;
  /** The collector: how often each cluster is swept, how many at once per process, the deadline per cluster, how long history is kept. */
  collector: {
    intervalMs: number;
    concurrency: number;
    clusterTimeoutMs: number;
    /** Every change is kept this long; past it, one row a day per fact for `dailyDays` (never shorter). */
    retentionDays: number;
    dailyDays: number;
    shardLeaseMs: number;
  };
  /**
   * Whether a web process sweeps clusters too (default on, as `npm start` runs one process); off
   * where collector workers (`npm run collector`) sweep and the web processes only serve.
   */
  webSweeps: boolean;
  /** How often every ACM hub is listed in full (between lists, its watches bring changes). */
  hubResyncMs: number;
  /** The demo fleet comes from a simulated ACM hub. */
  demoHub: boolean;
  /** Serve a simulated demo fleet while no real cluster is registered (default on). */
  demo: boolean;
  /** Apply migrations at start (default); off where one migration step per rollout does it. */
  migrate: boolean;
  /** Sign-in through an OpenID Connect provider (FLEETSKEW_OIDC_*), when an issuer is set. */
  oidc: OidcConfig | null;
  /** OpenShift's oauth-proxy in front (FLEETSKEW_AUTH_PROXY*): whose identity headers are trusted. */
  authProxy: AuthProxyConfig | null;
  /** The bearer token a Prometheus presents to /metrics; unset: only signed-in admins may read it. */
  metricsToken: string | undefined;
  /** An Alertmanager whose active alerts and silences the alert list shows (its v2 API). */
  alertmanagerUrl: string | undefined;
};

/** Reads and validates the environment. Throws ConfigError naming the variable at fault. */
export function readConfig(env: Record<string, string | undefined> = process.env): AppConfig {
  // An empty variable means "not set": `DATABASE_URL= npm start` should use the embedded database.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${issue.path.join(".")} ${issue.message}`);
  }
  const e = parsed.data;
  const publicUrlOrigin = e.FLEETSKEW_PUBLIC_URL ? new URL(e.FLEETSKEW_PUBLIC_URL).origin : undefined;
  let sso: ReturnType<typeof readSsoConfig>;
  try {
    sso = readSsoConfig(present, publicUrlOrigin);
  } catch (error) {
    if (error instanceof SsoConfigError) throw new ConfigError(error.message);
    throw error;
  }
  return {
    databaseUrl: e.DATABASE_URL,
    migrationDatabaseUrl: e.FLEETSKEW_MIGRATION_DATABASE_URL,
    port: e.PORT,
    host: e.HOST,
    // Chosen at run time; the bundler must not trace it.
    dataDir: path.resolve(/*turbopackIgnore: true*/ e.FLEETSKEW_DATA_DIR ?? ".fleetskew"),
    adminPassword: e.FLEETSKEW_ADMIN_PASSWORD,
    sessionTtlHours: e.FLEETSKEW_SESSION_TTL_HOURS,
    allowedOrigins: [
      ...(e.FLEETSKEW_ALLOWED_ORIGINS ?? "")
        .split(",")
        .map((o) => o.trim().replace(/\/$/, ""))
        .filter(Boolean),
      ...(e.FLEETSKEW_PUBLIC_URL ? [new URL(e.FLEETSKEW_PUBLIC_URL).origin] : []),
    ],
    secretKey: e.FLEETSKEW_SECRET_KEY,
    oldSecretKeys: (e.FLEETSKEW_SECRET_KEYS_OLD ?? "")
      .split(",")
      .map((k) => k.trim())
      .filter(Boolean),
    publicUrl: publicUrlOrigin,
    trustedProxyHops: e.FLEETSKEW_TRUST_PROXY_HOPS ?? (e.FLEETSKEW_TRUST_PROXY === "1" || e.FLEETSKEW_TRUST_PROXY === "true" ? 1 : 0),
    kube: {
      timeoutMs: e.FLEETSKEW_KUBE_TIMEOUT_MS,
      retries: e.FLEETSKEW_KUBE_RETRIES,
      connectTo: parseConnectTo(e.FLEETSKEW_CONNECT_TO ?? ""),
      watchClusters: e.FLEETSKEW_KUBE_WATCH_CLUSTERS,
    },
    registrationConcurrency: e.FLEETSKEW_REGISTRATION_CONCURRENCY,
    collector: {
      intervalMs: e.FLEETSKEW_SWEEP_INTERVAL_SECONDS * 1000,
      concurrency: e.FLEETSKEW_SWEEP_CONCURRENCY,
      clusterTimeoutMs: e.FLEETSKEW_SWEEP_TIMEOUT_SECONDS * 1000,
      retentionDays: e.FLEETSKEW_HISTORY_RETENTION_DAYS,
      dailyDays: Math.max(e.FLEETSKEW_HISTORY_DAILY_DAYS, e.FLEETSKEW_HISTORY_RETENTION_DAYS),
      shardLeaseMs: e.FLEETSKEW_SHARD_LEASE_SECONDS * 1000,
    },
    demo: e.FLEETSKEW_DEMO === undefined || e.FLEETSKEW_DEMO === "1" || e.FLEETSKEW_DEMO === "true",
    migrate: e.FLEETSKEW_MIGRATE !== "0" && e.FLEETSKEW_MIGRATE !== "false",
    webSweeps: e.FLEETSKEW_WEB_SWEEPS !== "0" && e.FLEETSKEW_WEB_SWEEPS !== "false",
    hubResyncMs: e.FLEETSKEW_HUB_RESYNC_SECONDS * 1000,
    demoHub: e.FLEETSKEW_DEMO_HUB === "1",
    metricsToken: e.FLEETSKEW_METRICS_TOKEN,
    alertmanagerUrl: e.FLEETSKEW_ALERTMANAGER_URL?.replace(/\/+$/, ""),
    ...sso,
  };
}

/** Where the running process's database lives; set by the start script for the embedded one. */
export function databaseMode(env: Record<string, string | undefined> = process.env): "postgres" | "embedded" {
  return env.FLEETSKEW_DATABASE_MODE === "embedded" ? "embedded" : "postgres";
}
