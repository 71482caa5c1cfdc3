/**
 * Renders the kustomize overlays with the kubectl a cluster admin uses (`kubectl kustomize`) and
 * checks every object against its schema and against what running Fleetskew safely needs.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { readConfig } from "../server/config/env";
import { clientIp } from "../server/http/request";
import { schemaProblems } from "./schemas";

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: any;
};
type EnvVar = {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; fieldRef?: unknown };
};
type Container = {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  ports?: { name: string; containerPort: number }[];
  securityContext?: Record<string, any>;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  readinessProbe?: any;
  livenessProbe?: any;
  startupProbe?: any;
  volumeMounts?: { name: string; mountPath: string }[];
};

const root = path.resolve(__dirname, "..");
const kubectl = (() => {
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
if (!kubectl) console.warn("deploy/manifests.test.ts skipped: kubectl is not installed (.ci/run installs it; see docs/deploy.md)");

function render(dir: string): Obj[] {
  const yaml = execFileSync("kubectl", ["kustomize", path.join(root, "deploy", dir)], { encoding: "utf8" });
  return parseAllDocuments(yaml).map((d) => d.toJS() as Obj);
}

const OVERLAYS = ["overlays/openshift", "overlays/kubernetes", "examples/openshift-cloudnative-pg"];

/** The Secrets (and keys) each overlay refers to, as docs/deploy.md lists them for operators to create. */
const SECRETS: Record<string, string[]> = {
  "overlays/openshift": [
    "fleetskew/admin-password",
    "fleetskew/database-url",
    "fleetskew/metrics-token",
    "fleetskew/migration-database-url",
    "fleetskew/secret-key",
    "fleetskew/secret-keys-old",
    "fleetskew-proxy/session-secret",
    "fleetskew-proxy-tls",
  ],
  "overlays/kubernetes": [
    "fleetskew/admin-password",
    "fleetskew/database-url",
    "fleetskew/metrics-token",
    "fleetskew/migration-database-url",
    "fleetskew/secret-key",
    "fleetskew/secret-keys-old",
    "fleetskew-tls",
  ],
  "examples/openshift-cloudnative-pg": [
    "fleetskew/admin-password",
    "fleetskew/metrics-token",
    "fleetskew/secret-key",
    "fleetskew/secret-keys-old",
    "fleetskew-db-app/uri",
    "fleetskew-db-runtime",
    "fleetskew-db-runtime/password",
    "fleetskew-db-runtime/username",
    "fleetskew-proxy/session-secret",
    "fleetskew-proxy-tls",
  ],
};

/** Secret references anywhere in the objects: secretKeyRef (name/key), secret volumes, Ingress TLS, CNPG passwordSecret. */
function secretReferences(objects: Obj[]): string[] {
  const refs = new Set<string>();
  const walk = (value: unknown, parent?: string) => {
    if (Array.isArray(value)) return value.forEach((v) => walk(v, parent));
    if (!value || typeof value !== "object") return;
    const o = value as Record<string, unknown>;
    if (parent === "secretKeyRef") refs.add(`${o.name}/${o.key}`);
    if (parent === "secret" && typeof o.secretName === "string") {
      const items = (o.items as { key: string }[] | undefined) ?? [];
      if (items.length === 0) refs.add(o.secretName);
      for (const item of items) refs.add(`${o.secretName}/${item.key}`);
    }
    if (parent === "passwordSecret") refs.add(String(o.name));
    if (parent === "tls" && typeof o.secretName === "string") refs.add(o.secretName);
    for (const [k, v] of Object.entries(o)) walk(v, k);
  };
  objects.forEach((o) => walk(o));
  return [...refs].sort();
}

const podSpecs = (objects: Obj[]) =>
  objects.filter((o) => o.kind === "Deployment").map((d) => ({ name: d.metadata.name, spec: d.spec.template.spec }));
const containersOf = (spec: any): Container[] => [...(spec.initContainers ?? []), ...spec.containers];
const fleetskewImage = (c: Container) => /fleetskew\/fleetskew:/.test(c.image);

/** CPU in millicores, memory in bytes: enough of Kubernetes' quantity syntax for these manifests. */
function quantity(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi)?$/.exec(value);
  if (!m) throw new Error(`unexpected quantity ${value}`);
  const n = Number(m[1]);
  return { m: n, Ki: n * 1024, Mi: n * 1024 ** 2, Gi: n * 1024 ** 3, "": n * 1000 }[m[2] ?? ""]!;
}

/** Every string in an object, with where it is. */
function strings(value: unknown, at = ""): [string, string][] {
  if (typeof value === "string") return [[at, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${at}/${i}`));
  if (value && typeof value === "object") return Object.entries(value).flatMap(([k, v]) => strings(v, `${at}/${k}`));
  return [];
}

describe.skipIf(!kubectl).each(OVERLAYS)("kubectl kustomize deploy/%s", (overlay) => {
  const objects = kubectl ? render(overlay) : [];

  it("renders objects that are valid against the Kubernetes, OpenShift and CloudNativePG schemas, with no unknown fields", async () => {
    expect(objects.length).toBeGreaterThan(5);
    const problems = (await Promise.all(objects.map((o) => schemaProblems(o as unknown as Record<string, unknown>)))).flat();
    expect(problems).toEqual([]);
    for (const o of objects) expect(o.metadata.namespace, `${o.kind}/${o.metadata.name}`).toBe("fleetskew");
  });

  it("runs every pod under the restricted security context, writing only to an emptyDir at /tmp", () => {
    for (const { name, spec } of podSpecs(objects)) {
      expect(spec.securityContext, name).toEqual({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
      expect(spec.hostNetwork ?? false, name).toBe(false);
      expect(spec.hostPID ?? false, name).toBe(false);
      expect(
        spec.volumes.filter((v: any) => v.hostPath),
        name,
      ).toEqual([]);
      for (const c of containersOf(spec)) {
        const where = `${name}/${c.name}`;
        // No runAsUser: OpenShift assigns a UID from the namespace's range, the image's works elsewhere.
        expect(c.securityContext, where).toEqual({
          allowPrivilegeEscalation: false,
          capabilities: { drop: ["ALL"] },
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
        });
        if (fleetskewImage(c)) {
          const tmp = c.volumeMounts?.find((m) => m.mountPath === "/tmp");
          expect(tmp, `${where} mounts a writable /tmp`).toBeDefined();
          expect(spec.volumes.find((v: any) => v.name === tmp!.name).emptyDir, where).toBeDefined();
          const dataDir = c.env?.find((e) => e.name === "FLEETSKEW_DATA_DIR")?.value ?? "";
          expect(dataDir.startsWith("/tmp/"), `${where} FLEETSKEW_DATA_DIR under /tmp`).toBe(true);
        }
      }
    }
  });

  it("sets CPU and memory requests and limits on every container, requests within limits", () => {
    for (const { name, spec } of podSpecs(objects)) {
      for (const c of containersOf(spec)) {
        for (const resource of ["cpu", "memory"]) {
          const request = c.resources?.requests?.[resource];
          const limit = c.resources?.limits?.[resource];
          expect(request, `${name}/${c.name} ${resource} request`).toBeDefined();
          expect(limit, `${name}/${c.name} ${resource} limit`).toBeDefined();
          expect(quantity(request!)).toBeLessThanOrEqual(quantity(limit!));
        }
      }
    }
  });

  it("probes every serving container; the console on /api/health", () => {
    let consoles = 0;
    for (const { name, spec } of podSpecs(objects)) {
      for (const c of spec.containers as Container[]) {
        if (!c.ports?.length) continue;
        expect(c.readinessProbe, `${name}/${c.name} readiness`).toBeDefined();
        expect(c.livenessProbe, `${name}/${c.name} liveness`).toBeDefined();
        for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe].filter(Boolean)) {
          expect(c.ports.map((p) => p.name)).toContain(probe.httpGet.port);
          if (fleetskewImage(c)) expect(probe.httpGet.path).toBe("/api/health");
        }
        if (fleetskewImage(c)) consoles++;
      }
    }
    expect(consoles).toBe(1);
  });

  it("inlines no secret: values come from Secrets by reference, the ones docs/deploy.md lists", () => {
    expect(objects.filter((o) => o.kind === "Secret")).toEqual([]);
    expect(secretReferences(objects)).toEqual([...SECRETS[overlay]!].sort());
    for (const o of objects) {
      for (const [at, s] of strings(o)) {
        expect(s, `${o.kind}/${o.metadata.name}${at}`).not.toMatch(/-----BEGIN|--(cookie|client)-secret=|password=/i);
        // A connection URL may carry credentials only as references to variables ($(NAME)).
        const userinfo = /^[a-z]+:\/\/([^@/]*)@/i.exec(s)?.[1];
        if (userinfo !== undefined) expect(userinfo, `${o.kind}/${o.metadata.name}${at}`).toMatch(/^\$\([A-Z_]+\)(:\$\([A-Z_]+\))?$/);
      }
    }
    for (const { name, spec } of podSpecs(objects)) {
      for (const c of containersOf(spec)) {
        const env = c.env ?? [];
        env.forEach((e, i) => {
          const where = `${name}/${c.name} ${e.name}`;
          if (/PASSWORD|SECRET|TOKEN|KEY|DATABASE_URL/.test(e.name) && e.valueFrom === undefined) {
            // Only a URL put together from variables defined earlier from Secrets.
            const refs = [...(e.value ?? "").matchAll(/\$\(([A-Z_]+)\)/g)].map((m) => m[1]);
            expect(refs.length, `${where} is a literal`).toBeGreaterThan(0);
            for (const ref of refs)
              expect(env.slice(0, i).find((x) => x.name === ref)?.valueFrom?.secretKeyRef, `${where} uses $(${ref})`).toBeDefined();
          }
        });
      }
    }
  });

  it("migrates once per rollout in an init step with the owner role; no long-running process migrates", () => {
    const migrateSteps = podSpecs(objects).flatMap(({ spec }) => (spec.initContainers ?? []) as Container[]);
    expect(migrateSteps.map((c) => c.command)).toEqual([["node", "scripts/migrate.js"]]);
    expect(migrateSteps[0]!.env?.find((e) => e.name === "FLEETSKEW_MIGRATION_DATABASE_URL")?.valueFrom?.secretKeyRef).toBeDefined();
    const web = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "fleetskew-web")!;
    expect(web.spec.template.spec.initContainers).toHaveLength(1);
    expect(web.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
    for (const { name, spec } of podSpecs(objects)) {
      for (const c of (spec.containers as Container[]).filter(fleetskewImage)) {
        expect(c.env?.find((e) => e.name === "FLEETSKEW_MIGRATE")?.value, `${name}/${c.name}`).toBe("0");
        expect(
          c.env?.some((e) => e.name === "FLEETSKEW_MIGRATION_DATABASE_URL"),
          `${name}/${c.name} holds no owner credentials`,
        ).toBe(false);
        expect(
          c.env?.find((e) => e.name === "FLEETSKEW_SECRET_KEY")?.valueFrom?.secretKeyRef,
          `${name}/${c.name} shares the key`,
        ).toBeDefined();
      }
    }
    // Each command is one of the scripts the standalone build bundles (scripts/standalone.ts).
    const bundled = /const ENTRY_POINTS = \[([^\]]*)\]/.exec(readFileSync(path.join(root, "scripts/standalone.ts"), "utf8"))![1];
    for (const { spec } of podSpecs(objects)) {
      for (const c of containersOf(spec).filter(fleetskewImage)) {
        const script = c.command!.find((a) => a.startsWith("scripts/"))!;
        expect(bundled).toContain(`"${path.basename(script, ".js")}"`);
        expect(existsSync(path.join(root, script.replace(/\.js$/, ".ts")))).toBe(true);
      }
    }
  });

  it("selects the pods it means to: Services, disruption budgets and network policies", () => {
    const podLabels = podSpecs(objects).map(({ name }) => objects.find((o) => o.metadata.name === name)!.spec.template.metadata.labels);
    const matches = (selector: Record<string, string>) =>
      podLabels.filter((l) => Object.entries(selector).every(([k, v]) => l[k] === v)).length;
    for (const o of objects) {
      if (o.kind === "Service") expect(matches(o.spec.selector), o.metadata.name).toBe(1);
      if (o.kind === "PodDisruptionBudget" || o.kind === "NetworkPolicy")
        expect(matches(o.spec.selector?.matchLabels ?? o.spec.podSelector.matchLabels)).toBe(1);
      if (o.kind === "PodDisruptionBudget") expect(o.spec.maxUnavailable, `${o.metadata.name} never blocks a drain`).toBe(1);
    }
  });

  it("mounts the service account token only into a container that uses it (oauth-proxy), and no pod has it automounted", () => {
    expect(objects.filter((o) => o.kind === "ServiceAccount").map((o: any) => o.automountServiceAccountToken)).toEqual([false]);
    const holders: string[] = [];
    for (const { name, spec } of podSpecs(objects)) {
      expect(spec.automountServiceAccountToken, name).toBe(false);
      const tokenVolumes = new Set(
        (spec.volumes ?? []).filter((v: any) => v.projected?.sources?.some((s: any) => s.serviceAccountToken)).map((v: any) => v.name),
      );
      for (const c of containersOf(spec)) if (c.volumeMounts?.some((m) => tokenVolumes.has(m.name))) holders.push(`${name}/${c.name}`);
    }
    expect(holders).toEqual(overlay === "overlays/kubernetes" ? [] : ["fleetskew-web/oauth-proxy"]);
  });

  it("serves from two web replicas, so a drain or a crash leaves one serving, and includes no monitoring objects", () => {
    const web = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "fleetskew-web")!;
    expect(web.spec.replicas).toBe(2);
    // The rolling update never drops below the replicas there are.
    expect(web.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
    // PrometheusRule needs the Prometheus Operator's CRDs: it is applied on its own (deploy/monitoring).
    expect(objects.filter((o) => o.kind === "PrometheusRule")).toEqual([]);
  });
});

describe.skipIf(!kubectl)("the openshift overlay", () => {
  const objects = kubectl ? render("overlays/openshift") : [];
  const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name)!;

  it("puts OpenShift's sign-in in front: Route → oauth-proxy (service-CA certificate) → the console on loopback", () => {
    const route = find("Route", "fleetskew");
    const service = find("Service", "fleetskew");
    const sa = find("ServiceAccount", "fleetskew");
    const pod = find("Deployment", "fleetskew-web").spec.template.spec;
    const proxy = pod.containers.find((c: Container) => c.name === "oauth-proxy") as Container;
    const web = pod.containers.find((c: Container) => c.name === "web") as Container;
    const arg = (flag: string) => proxy.args!.find((a) => a.startsWith(`--${flag}=`))?.slice(flag.length + 3);

    expect(route.spec.tls).toEqual({ termination: "reencrypt", insecureEdgeTerminationPolicy: "Redirect" });
    expect(route.spec.to.name).toBe("fleetskew");
    expect(service.spec.ports).toEqual([{ name: "https", port: 8443, targetPort: "https" }]);
    expect(route.spec.port.targetPort).toBe("https");
    expect(proxy.ports).toEqual([{ name: "https", containerPort: 8443, protocol: "TCP" }]);

    const certSecret = service.metadata.annotations!["service.beta.openshift.io/serving-cert-secret-name"];
    const tlsVolume = pod.volumes.find((v: any) => v.secret?.secretName === certSecret);
    expect(proxy.volumeMounts!.find((m) => m.name === tlsVolume.name)!.mountPath).toBe(path.dirname(arg("tls-cert")!));
    expect(arg("tls-key")).toBe(`${path.dirname(arg("tls-cert")!)}/tls.key`);

    expect(arg("provider")).toBe("openshift");
    expect(arg("openshift-service-account")).toBe(pod.serviceAccountName);
    expect(pod.serviceAccountName).toBe(sa.metadata.name);
    expect(JSON.parse(sa.metadata.annotations!["serviceaccounts.openshift.io/oauth-redirectreference.primary"]!)).toEqual({
      kind: "OAuthRedirectReference",
      apiVersion: "v1",
      reference: { kind: "Route", name: route.metadata.name },
    });
    expect(arg("http-address")).toBe("");
    expect(arg("upstream")).toBe(`http://localhost:${web.ports![0]!.containerPort}`);
    expect(arg("cookie-secret-file")).toMatch(/^\/etc\/proxy\/secrets\//);

    const env = Object.fromEntries(web.env!.map((e) => [e.name, e.value]));
    expect(env).toMatchObject({
      FLEETSKEW_AUTH_PROXY: "openshift",
      FLEETSKEW_AUTH_PROXY_PEERS: "127.0.0.1,::1",
      FLEETSKEW_TRUST_PROXY: "1",
      FLEETSKEW_TRUST_PROXY_HOPS: "2",
    });
    // The console starts with this configuration (a mapping is required with the proxy).
    expect(() => readConfig({ ...env, KUBERNETES_SERVICE_HOST: "172.30.0.1" } as Record<string, string>)).not.toThrow();
    // The web container reads the OpenShift API's CA where the configuration looks for it, without the token.
    const caMount = web.volumeMounts!.find((m) => m.mountPath === "/var/run/secrets/kubernetes.io/serviceaccount")!;
    expect(pod.volumes.find((v: any) => v.name === caMount.name).projected.sources).toEqual([
      { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
    ]);
  });

  it("finds the client two hops from the right of X-Forwarded-For: the router appends it, oauth-proxy appends the router", () => {
    const web = find("Deployment", "fleetskew-web").spec.template.spec.containers.find((c: Container) => c.name === "web") as Container;
    const env = Object.fromEntries(web.env!.map((e) => [e.name, e.value]));
    const config = readConfig({ ...env, KUBERNETES_SERVICE_HOST: "172.30.0.1" } as Record<string, string>);
    // A client that forges its own entries: they are left of what the two proxies wrote.
    const forwarded = new Headers({ "x-forwarded-for": "198.51.100.66, 192.0.2.1, 203.0.113.7, 10.128.2.14" });
    expect(clientIp(forwarded, config)).toBe("203.0.113.7");
  });

  it("lets only the ingress controllers reach the pods, and only oauth-proxy's port", () => {
    expect(find("NetworkPolicy", "fleetskew-web").spec.ingress).toEqual([
      {
        from: [{ namespaceSelector: { matchLabels: { "policy-group.network.openshift.io/ingress": "" } } }],
        ports: [{ port: "https", protocol: "TCP" }],
      },
    ]);
    expect(find("NetworkPolicy", "fleetskew-collector").spec.ingress).toEqual([]);
  });
});

describe.skipIf(!kubectl)("the kubernetes overlay", () => {
  const objects = kubectl ? render("overlays/kubernetes") : [];

  it("lets only the ingress controller's pods reach the console's port, and trusts the one hop it adds", () => {
    const policy = objects.find((o) => o.kind === "NetworkPolicy" && o.metadata.name === "fleetskew-web")!;
    expect(policy.spec.ingress).toEqual([
      {
        from: [
          {
            namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "ingress-nginx" } },
            podSelector: { matchLabels: { "app.kubernetes.io/name": "ingress-nginx" } },
          },
        ],
        ports: [{ port: "http", protocol: "TCP" }],
      },
    ]);
    const web = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "fleetskew-web")!.spec.template.spec
      .containers[0] as Container;
    const env = Object.fromEntries(web.env!.filter((e) => e.value !== undefined).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ FLEETSKEW_TRUST_PROXY: "1", FLEETSKEW_TRUST_PROXY_HOPS: "1" });
    const config = readConfig({
      FLEETSKEW_TRUST_PROXY: env.FLEETSKEW_TRUST_PROXY!,
      FLEETSKEW_TRUST_PROXY_HOPS: env.FLEETSKEW_TRUST_PROXY_HOPS!,
    });
    expect(clientIp(new Headers({ "x-forwarded-for": "198.51.100.66, 203.0.113.7" }), config)).toBe("203.0.113.7");
  });

  it("routes the Ingress, with TLS, to the console's Service port", () => {
    const ingress = objects.find((o) => o.kind === "Ingress")!;
    const service = objects.find((o) => o.kind === "Service")!;
    const backend = ingress.spec.rules[0].http.paths[0].backend.service;
    expect(backend.name).toBe(service.metadata.name);
    expect(service.spec.ports.map((p: { name: string }) => p.name)).toContain(backend.port.name);
    expect(ingress.spec.tls[0].hosts).toEqual([ingress.spec.rules[0].host]);
  });
});

describe("the Containerfile", () => {
  const file = readFileSync(path.join(root, "Containerfile"), "utf8");
  const stages = file.split(/^FROM /m).slice(1);
  const final = stages.at(-1)!;

  it("builds in one stage and runs the standalone build from a minimal UBI Node.js image as a non-root user", () => {
    expect(file).toMatch(/^ARG BUILDER_IMAGE=registry\.access\.redhat\.com\/ubi9\/nodejs-22:latest$/m);
    expect(file).toMatch(/^ARG BASE_IMAGE=registry\.access\.redhat\.com\/ubi9\/nodejs-22-minimal:latest$/m);
    expect(stages).toHaveLength(2);
    expect(final.split("\n")[0]).toBe("${BASE_IMAGE}");
    // Only the standalone build crosses over: no sources, no node_modules from the build, no npm run.
    expect(final.match(/^COPY .*/gm)).toEqual(["COPY --from=build /build/.next/standalone/ ./"]);
    expect(final).not.toMatch(/^RUN .*\b(npm|microdnf|dnf|yum)\b/m);
    const users = final.match(/^USER (.*)$/gm)!;
    expect(users.at(-1)).toBe("USER 1001");
    expect(final).toMatch(/^ENTRYPOINT \["node"\]$/m);
    expect(final).toMatch(/^CMD \["scripts\/start\.js"\]$/m);
    // The data directory (for runs without a volume or database) is the group's, for an arbitrary UID in group 0.
    const dataDir = /FLEETSKEW_DATA_DIR=(\S+)/.exec(final)![1];
    expect(final).toContain(`chgrp 0 ${dataDir} && chmod 0770 ${dataDir}`);
  });
});
