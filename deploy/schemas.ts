/**
 * Offline schema checks for the rendered manifests (deploy/manifests.test.ts).
 *
 * Kubernetes kinds are checked with the `kubernetes-models` validators (generated from the
 * Kubernetes OpenAPI schema) and CloudNativePG's Cluster with `@kubernetes-models/cloudnative-pg`
 * (generated from the operator's CRDs), the Prometheus Operator's PrometheusRule and ServiceMonitor with
 * `@kubernetes-models/prometheus-operator` (generated from its CRDs). No npm package models OpenShift's Route, so its schema is
 * written below from openshift/api, route/v1/types.go (Route, RouteSpec, RouteTargetReference,
 * RoutePort, TLSConfig and their kubebuilder validation markers).
 *
 * Those generated validators accept fields they do not know, as OpenAPI schemas do; the API server
 * does not (kubectl's field validation is strict by default). So every field of an object must also
 * be one its validator looked at: objects are wrapped in proxies that record the properties read.
 */
import { z } from "zod";

/** A model class of kubernetes-models: its prototype's validate() throws on an invalid `this`. */
type Model = { prototype: { validate(this: unknown): void } };
type Loader = () => Promise<Model>;

const MODELS: Record<string, Loader> = {
  "v1/ServiceAccount": async () => (await import("kubernetes-models/v1/ServiceAccount")).ServiceAccount,
  "v1/Service": async () => (await import("kubernetes-models/v1/Service")).Service,
  "apps/v1/Deployment": async () => (await import("kubernetes-models/apps/v1/Deployment")).Deployment,
  "policy/v1/PodDisruptionBudget": async () => (await import("kubernetes-models/policy/v1/PodDisruptionBudget")).PodDisruptionBudget,
  "networking.k8s.io/v1/NetworkPolicy": async () => (await import("kubernetes-models/networking.k8s.io/v1/NetworkPolicy")).NetworkPolicy,
  "networking.k8s.io/v1/Ingress": async () => (await import("kubernetes-models/networking.k8s.io/v1/Ingress")).Ingress,
  "rbac.authorization.k8s.io/v1/ClusterRole": async () =>
    (await import("kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole")).ClusterRole,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": async () =>
    (await import("kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding")).ClusterRoleBinding,
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy": async () =>
    (await import("kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy")).ValidatingAdmissionPolicy,
  "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding": async () =>
    (await import("kubernetes-models/admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding")).ValidatingAdmissionPolicyBinding,
  "postgresql.cnpg.io/v1/Cluster": async () => (await import("@kubernetes-models/cloudnative-pg/postgresql.cnpg.io/v1")).Cluster,
  "monitoring.coreos.com/v1/PrometheusRule": async () =>
    (await import("@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule")).PrometheusRule,
  "monitoring.coreos.com/v1/ServiceMonitor": async () =>
    (await import("@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor")).ServiceMonitor,
};
const objectMeta: Loader = async () => (await import("@kubernetes-models/apimachinery/apis/meta/v1/ObjectMeta")).ObjectMeta;

/** Wraps `value` so that reading a property of any object in it is recorded in `read`. */
function tracked(value: unknown, at: string, all: string[], read: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((v, i) => tracked(v, `${at}/${i}`, all, read));
  if (value === null || typeof value !== "object") return value;
  const copy: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    all.push(`${at}/${key}`);
    copy[key] = tracked(v, `${at}/${key}`, all, read);
  }
  return new Proxy(copy, {
    get(target, key, receiver) {
      if (typeof key === "string" && Object.hasOwn(target, key)) read.add(`${at}/${key}`);
      return Reflect.get(target, key, receiver);
    },
  });
}

async function runValidator(load: Loader, value: unknown, at: string): Promise<string[]> {
  const model = await load();
  const all: string[] = [];
  const read = new Set<string>();
  const errors: string[] = [];
  try {
    model.prototype.validate.call(tracked(value, at, all, read));
  } catch (error) {
    errors.push(`${at}: ${(error as Error).message}`);
  }
  const unknown = all.filter((p) => !read.has(p)).map((p) => `${p}: unknown field`);
  return [...errors, ...unknown];
}

const dnsSubdomain = /^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9]))*$/;
const routeTarget = z.strictObject({
  kind: z.enum(["Service", ""]).optional(),
  name: z.string().min(1),
  weight: z.number().int().min(0).max(256).nullable().optional(),
});
const RouteSchema = z.strictObject({
  apiVersion: z.literal("route.openshift.io/v1"),
  kind: z.literal("Route"),
  metadata: z.unknown(),
  spec: z.strictObject({
    host: z.string().max(253).regex(dnsSubdomain).optional(),
    subdomain: z.string().max(253).regex(dnsSubdomain).optional(),
    path: z.string().regex(/^\//).optional(),
    to: routeTarget,
    alternateBackends: z.array(routeTarget).max(3).optional(),
    port: z.strictObject({ targetPort: z.union([z.number().int(), z.string().min(1)]) }).optional(),
    tls: z
      .strictObject({
        termination: z.enum(["edge", "reencrypt", "passthrough"]),
        certificate: z.string().optional(),
        key: z.string().optional(),
        caCertificate: z.string().optional(),
        destinationCACertificate: z.string().optional(),
        insecureEdgeTerminationPolicy: z.enum(["Allow", "None", "Redirect", ""]).optional(),
        externalCertificate: z.strictObject({ name: z.string().optional() }).optional(),
      })
      .refine((t) => !(t.termination === "passthrough" && t.insecureEdgeTerminationPolicy === "Allow"), {
        message: "cannot have both spec.tls.termination: passthrough and spec.tls.insecureEdgeTerminationPolicy: Allow",
      })
      .refine((t) => !(t.certificate && t.externalCertificate), {
        message: "cannot have both spec.tls.certificate and spec.tls.externalCertificate",
      })
      .optional(),
    wildcardPolicy: z.enum(["None", "Subdomain", ""]).optional(),
  }),
});

/** Problems with one rendered object against its kind's schema; empty when it is valid. */
export async function schemaProblems(object: Record<string, unknown>): Promise<string[]> {
  const key = `${object.apiVersion}/${object.kind}`;
  const at = `${object.kind}/${(object.metadata as { name?: string } | undefined)?.name ?? "?"}`;
  if (key === "route.openshift.io/v1/Route") {
    const parsed = RouteSchema.safeParse(object);
    const problems = parsed.success ? [] : parsed.error.issues.map((i) => `${at}/${i.path.join("/")}: ${i.message}`);
    return [...problems, ...(await runValidator(objectMeta, object.metadata, `${at}/metadata`))];
  }
  const load = MODELS[key];
  if (!load) return [`${at}: no schema for ${key}; add one to deploy/schemas.ts`];
  return runValidator(load, object, at);
}
