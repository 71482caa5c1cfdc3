import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { checkCaBundle, checkServerUrl, CredentialsError } from "../domain/credentialText";

export { checkCaBundle, checkServerUrl, CredentialsError };

/**
 * How Fleetskew reaches one cluster. Stored encrypted (server/store/secrets), never sent to the browser.
 * Exec plugins and auth providers are not supported: they run programs on the Fleetskew host.
 */
export const CredentialsSchema = z.object({
  server: z.string(),
  token: z.string().optional(),
  clientCertificateData: z.string().optional(),
  clientKeyData: z.string().optional(),
  /** PEM of the CA that signed the API server's certificate. */
  certificateAuthority: z.string().optional(),
  insecureSkipTlsVerify: z.boolean().default(false),
  /** How the server is reached: an ACM hub's cluster-proxy user-server (server/hubs/sync.ts), or the cluster itself. */
  reach: z.enum(["direct", "cluster-proxy"]).optional(),
});
export type ClusterCredentials = z.infer<typeof CredentialsSchema>;

const decodeBase64 = (value: string, what: string) => {
  const text = Buffer.from(value, "base64").toString("utf8");
  if (!text.includes("-----BEGIN")) throw new CredentialsError(`${what} is not base64-encoded PEM`);
  return text;
};

const name = z.string().min(1, "needs a name");

const KubeconfigSchema = z.object({
  clusters: z
    .array(
      z.object({
        name,
        cluster: z.object({
          server: z.string({ error: "has no server" }),
          "certificate-authority-data": z.string().optional(),
          "certificate-authority": z.string().optional(),
          "insecure-skip-tls-verify": z.boolean().optional(),
        }),
      }),
    )
    .nullable()
    .default([]),
  users: z
    .array(z.object({ name, user: z.record(z.string(), z.unknown()).nullable().default({}) }))
    .nullable()
    .default([]),
  contexts: z
    .array(z.object({ name, context: z.object({ cluster: z.string(), user: z.string().optional(), namespace: z.string().optional() }) }))
    .nullable()
    .default([]),
  "current-context": z.string().optional(),
});

export type KubeconfigContext = { name: string; cluster: string; server: string; user: string | null; current: boolean };
/** How a context's user authenticates, as the kubeconfig says it; only "token" and "client certificate" are accepted. */
export type CredentialKind = "token" | "client certificate" | "exec" | "auth-provider" | "files" | "none";
export type ParsedKubeconfig = {
  contexts: KubeconfigContext[];
  credentialsFor(context: string): ClusterCredentials;
  credentialKindOf(context: string): CredentialKind;
};

/**
 * Anchored YAML nodes may be referenced this often in all (the yaml library's maxAliasCount): a
 * kubeconfig has no need of aliases, and they let a small upload expand into a very large document.
 */
export const KUBECONFIG_MAX_ALIASES = 50;

/**
 * Reads a kubeconfig (YAML or JSON). Everything a context needs must be inline: a token or client
 * certificate data, and CA data; file references cannot be followed on the Fleetskew host.
 */
export function parseKubeconfig(text: string): ParsedKubeconfig {
  if (!text.trim()) throw new CredentialsError("the kubeconfig is empty");
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: KUBECONFIG_MAX_ALIASES });
  } catch (error) {
    throw new CredentialsError(`the kubeconfig is not valid YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new CredentialsError("the kubeconfig is not a YAML mapping (it should start with apiVersion: v1, kind: Config)");
  const parsed = KubeconfigSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new CredentialsError(`the kubeconfig is not valid: ${issue.path.join(".") || "document"} ${issue.message}`);
  }
  const kc = { ...parsed.data, clusters: parsed.data.clusters ?? [], users: parsed.data.users ?? [], contexts: parsed.data.contexts ?? [] };
  if (kc.contexts.length === 0) throw new CredentialsError("the kubeconfig has no contexts");
  const clusterByName = new Map(kc.clusters.map((c) => [c.name, c.cluster]));
  const userByName = new Map(kc.users.map((u) => [u.name, u.user ?? {}]));
  const contexts = kc.contexts.map((c) => ({
    name: c.name,
    cluster: c.context.cluster,
    server: clusterByName.get(c.context.cluster)?.server ?? "",
    user: c.context.user ?? null,
    current: c.name === kc["current-context"],
  }));
  return {
    contexts,
    credentialKindOf(name: string): CredentialKind {
      const context = kc.contexts.find((c) => c.name === name);
      const user = context?.context.user ? userByName.get(context.context.user) : undefined;
      if (!user) return "none";
      if (user.exec) return "exec";
      if (user["auth-provider"]) return "auth-provider";
      if (user.tokenFile || user["client-certificate"] || user["client-key"]) return "files";
      if (typeof user.token === "string") return "token";
      if (typeof user["client-certificate-data"] === "string") return "client certificate";
      return "none";
    },
    credentialsFor(name: string): ClusterCredentials {
      const context = kc.contexts.find((c) => c.name === name);
      if (!context) throw new CredentialsError(`the kubeconfig has no context named "${name}"`);
      const cluster = clusterByName.get(context.context.cluster);
      if (!cluster)
        throw new CredentialsError(
          `context "${name}" refers to cluster "${context.context.cluster}", which the kubeconfig does not define`,
        );
      if (cluster["certificate-authority"] && !cluster["certificate-authority-data"]) {
        throw new CredentialsError(
          `cluster "${context.context.cluster}" refers to a CA file (${cluster["certificate-authority"]}); paste the certificate-authority-data instead`,
        );
      }
      const user = context.context.user ? userByName.get(context.context.user) : undefined;
      if (!user) throw new CredentialsError(`context "${name}" has no user with credentials`);
      if (user.exec || user["auth-provider"]) {
        throw new CredentialsError(
          `user "${context.context.user}" gets its credentials from a program (exec or auth-provider), which Fleetskew does not run; use a service-account token`,
        );
      }
      if (user.tokenFile || user["client-certificate"] || user["client-key"]) {
        throw new CredentialsError(
          `user "${context.context.user}" refers to files on another machine; inline the token or client-certificate-data/client-key-data`,
        );
      }
      const token = typeof user.token === "string" ? user.token : undefined;
      const cert =
        typeof user["client-certificate-data"] === "string"
          ? decodeBase64(user["client-certificate-data"], "client-certificate-data")
          : undefined;
      const key = typeof user["client-key-data"] === "string" ? decodeBase64(user["client-key-data"], "client-key-data") : undefined;
      if (!token && !(cert && key))
        throw new CredentialsError(`user "${context.context.user}" has neither a token nor a client certificate and key`);
      return {
        server: checkServerUrl(cluster.server),
        token,
        clientCertificateData: cert,
        clientKeyData: key,
        certificateAuthority: cluster["certificate-authority-data"]
          ? decodeBase64(cluster["certificate-authority-data"], "certificate-authority-data")
          : undefined,
        insecureSkipTlsVerify: cluster["insecure-skip-tls-verify"] ?? false,
      };
    },
  };
}
