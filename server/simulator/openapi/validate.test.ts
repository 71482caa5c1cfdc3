import { describe, expect, it } from "vitest";
import clusterPermissions from "../../../data/openapi/clusterpermissions.json";
import clusterVersions from "../../../data/openapi/clusterversions.json";
import machineConfigurations from "../../../data/openapi/machineconfigurations.json";
import managedServiceAccounts from "../../../data/openapi/managedserviceaccounts.json";
import pinnedImageSets from "../../../data/openapi/pinnedimagesets.json";
import { KINDS } from "../kinds";
import { desugarOptionals, unsupportedReason } from "./cel";
import { resolveSchema } from "./schemas";
import { errorString, validateObject, type Schema } from "./validate";

const DIGEST = `sha256:${"a".repeat(64)}`;
const at422 = (kind: string) =>
  resolveSchema(
    KINDS.find((k) => k.kind === kind)!,
    { minor: 22 },
  )!.schema;
const PIS = at422("PinnedImageSet");
const MC = at422("MachineConfiguration");
const CV = at422("ClusterVersion");

/** The field errors of a write, as kube-apiserver words them. */
const errors = (schema: Schema, object: Record<string, unknown>, old?: Record<string, unknown>) =>
  validateObject(schema, object, old).map(errorString);

const pinned = (...names: string[]) => ({ metadata: { name: "bundle" }, spec: { pinnedImages: names.map((name) => ({ name })) } });
const mc = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({
  metadata: { name: "cluster" },
  spec: { managementState: "Managed", ...spec },
  ...(status ? { status } : {}),
});
const cv = (desiredUpdate: Record<string, unknown>) => ({ metadata: { name: "version" }, spec: { clusterID: "c1", desiredUpdate } });

const NOT_CHECKED =
  '<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

describe("the extracted CRD schemas", () => {
  const perRelease = [pinnedImageSets, machineConfigurations, clusterVersions];
  const hub = [clusterPermissions, managedServiceAccounts];
  const sources = [...hub.map((f) => f.source), ...perRelease.flatMap((f) => Object.values(f.releases).map((r) => r.source))];
  const schemas: [string, unknown][] = [
    ...hub.map((f) => [f.kind, f.schema] as [string, unknown]),
    ...perRelease.flatMap((f) =>
      Object.entries(f.releases as Record<string, { schema: number }>).map(
        ([line, r]) => [`${f.kind} ${line}`, f.schemas[r.schema]] as [string, unknown],
      ),
    ),
  ];

  it("record where each was read from: openshift/api release-4.N for each line", () => {
    for (const s of sources) expect(s).toMatchObject({ repository: expect.any(String), commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    for (const f of perRelease)
      for (const [line, r] of Object.entries(f.releases as Record<string, { source: { repository: string; ref: string } }>))
        expect(r.source).toMatchObject({ repository: "openshift/api", ref: `release-${line.split("/")[0]}` });
    expect(Object.keys(machineConfigurations.releases).filter((k) => !k.includes("/"))).toEqual([
      "4.16",
      "4.17",
      "4.18",
      "4.19",
      "4.20",
      "4.21",
      "4.22",
      "4.23",
    ]);
    expect(Object.keys(pinnedImageSets.releases)).toEqual(["4.19", "4.20", "4.21", "4.22", "4.23"]);
  });

  it("hold only rules the simulator evaluates, but for isURL on TechPreview/DevPreview signature stores (skipped)", () => {
    const unsupported: string[] = [];
    let count = 0;
    for (const [name, schema] of schemas) {
      const walk = (node: unknown) => {
        if (!node || typeof node !== "object") return;
        const rs = (node as { "x-kubernetes-validations"?: { rule: string; unsupported?: string }[] })["x-kubernetes-validations"];
        for (const r of rs ?? []) {
          count++;
          if (r.unsupported || unsupportedReason(r.rule)) unsupported.push(`${name}: ${r.rule}`);
        }
        Object.values(node).forEach(walk);
      };
      walk(schema);
    }
    expect(count).toBeGreaterThan(400);
    expect(unsupported.length).toBeGreaterThan(0);
    for (const u of unsupported) expect(u).toMatch(/^ClusterVersion 4\.\d+\/(TechPreview|DevPreview)NoUpgrade: isURL\(self\)$/);
  });
});

describe("CEL support", () => {
  it("rewrites optional selection into has() chains", () => {
    expect(desugarOptionals(`self.?status.mode.orValue("") == 'A'`)).toBe(
      `((has(self.status) && has(self.status.mode)) ? self.status.mode : ("")) == 'A'`,
    );
    expect(desugarOptionals("!(self.?spec.managedBootImages.machineManagers.hasValue())")).toBe(
      "!((has(self.spec) && has(self.spec.managedBootImages) && has(self.spec.managedBootImages.machineManagers)))",
    );
  });

  it("names the functions it cannot evaluate", () => {
    expect(unsupportedReason("isURL(self)")).toBe("calls isURL");
    expect(unsupportedReason("format.dns1123Subdomain().validate(self).hasValue()")).toMatch(/calls dns1123Subdomain, validate/);
    expect(unsupportedReason("self.split('@').size() == 2 && self.matches('^a')")).toBeUndefined();
  });
});

describe("PinnedImageSet", () => {
  it("accepts images referenced by digest", () => {
    expect(
      errors(PIS, pinned(`quay.io/openshift-release-dev/ocp-v4.0-art-dev@${DIGEST}`, `mirror.example.com:5000/ocp/release@${DIGEST}`)),
    ).toEqual([]);
  });

  it("refuses an image referenced by tag, and one with more path segments than the rule allows", () => {
    expect(errors(PIS, pinned("quay.io/example/app:latest", `registry.example.com/a/b/c@${DIGEST}`))).toEqual([
      `spec.pinnedImages[0].name: Invalid value: "quay.io/example/app:latest": the OCI Image reference must end with a valid '@sha256:<digest>' suffix, where '<digest>' is 64 characters long`,
      'spec.pinnedImages[0].name: Invalid value: "quay.io/example/app:latest": the OCI Image name should follow the host[:port][/namespace]/name format, resembling a valid URL without the scheme',
      `spec.pinnedImages[1].name: Invalid value: "registry.example.com/a/b/c@${DIGEST}": the OCI Image name should follow the host[:port][/namespace]/name format, resembling a valid URL without the scheme`,
    ]);
  });

  it("refuses more than 500 images, an empty list, and the same image twice", () => {
    const many = Array.from({ length: 501 }, (_, i) => `quay.io/example/app${i}@${DIGEST}`);
    expect(errors(PIS, pinned(...many))).toEqual(["spec.pinnedImages: Too many: 501: must have at most 500 items", NOT_CHECKED]);
    expect(errors(PIS, pinned())).toEqual(["spec.pinnedImages: Invalid value: 0: spec.pinnedImages in body should have at least 1 items"]);
    expect(errors(PIS, pinned(`quay.io/a/b@${DIGEST}`, `quay.io/a/b@${DIGEST}`))).toEqual([
      `spec.pinnedImages[1]: Duplicate value: map[string]interface {}{"name":"quay.io/a/b@${DIGEST}"}`,
    ]);
    expect(errors(PIS, { metadata: { name: "x" }, spec: {} })).toEqual(["spec.pinnedImages: Required value", NOT_CHECKED]);
  });
});

describe("MachineConfiguration", () => {
  it("accepts the skew enforcement values Fleetskew writes", () => {
    expect(errors(MC, mc({ bootImageSkewEnforcement: { mode: "None" } }))).toEqual([]);
    expect(errors(MC, mc({ bootImageSkewEnforcement: { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: "4.19.0" } } }))).toEqual(
      [],
    );
    expect(
      errors(MC, mc({ bootImageSkewEnforcement: { mode: "Manual", manual: { mode: "RHCOSVersion", rhcosVersion: "9.6.20250701-0" } } })),
    ).toEqual([]);
  });

  it("refuses a mode without its member, or a member without its mode", () => {
    expect(errors(MC, mc({ bootImageSkewEnforcement: { mode: "Manual" } }))).toEqual([
      "spec.bootImageSkewEnforcement: Invalid value: manual is required when mode is Manual, and forbidden otherwise",
    ]);
    expect(errors(MC, mc({ bootImageSkewEnforcement: { mode: "None", manual: { mode: "OCPVersion", ocpVersion: "4.19.0" } } }))).toEqual([
      "spec.bootImageSkewEnforcement: Invalid value: manual is required when mode is Manual, and forbidden otherwise",
    ]);
    expect(
      errors(MC, mc({ bootImageSkewEnforcement: { mode: "Manual", manual: { mode: "OCPVersion", rhcosVersion: "9.6.20250701-0" } } })),
    ).toEqual([
      "spec.bootImageSkewEnforcement.manual: Invalid value: ocpVersion is required when mode is OCPVersion, and forbidden otherwise",
      "spec.bootImageSkewEnforcement.manual: Invalid value: rhcosVersion is required when mode is RHCOSVersion, and forbidden otherwise",
    ]);
  });

  it("refuses a malformed version, and a mode the release does not have", () => {
    expect(errors(MC, mc({ bootImageSkewEnforcement: { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: "4.19" } } }))).toEqual([
      'spec.bootImageSkewEnforcement.manual.ocpVersion: Invalid value: "4.19": spec.bootImageSkewEnforcement.manual.ocpVersion in body should be at least 5 chars long',
      'spec.bootImageSkewEnforcement.manual.ocpVersion: Invalid value: "4.19": ocpVersion must match the OCP semver compatible format of x.y.z',
    ]);
    expect(errors(MC, mc({ bootImageSkewEnforcement: { mode: "Automatic" } }))).toEqual([
      'spec.bootImageSkewEnforcement.mode: Unsupported value: "Automatic": supported values: "Manual", "None"',
      NOT_CHECKED,
    ]);
  });

  it("holds managedBootImages to the rules of Automatic skew enforcement (rules at the root, with optional selection)", () => {
    const managers = (mode: string) => ({
      managedBootImages: { machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode } }] },
    });
    const automatic = { bootImageSkewEnforcementStatus: { mode: "Automatic", automatic: { ocpVersion: "4.22.0" } } };
    expect(errors(MC, mc(managers("All"), automatic))).toEqual([]);
    expect(errors(MC, mc(managers("None"), automatic))).toEqual([
      "<nil>: Invalid value: when skew enforcement is in Automatic mode, any MachineAPI MachineSet MachineManager must use selection mode 'All'",
    ]);
    expect(errors(MC, mc(managers("None")))).toEqual([]);
    expect(
      errors(
        MC,
        mc({
          managedBootImages: {
            machineManagers: [
              {
                resource: "controlplanemachinesets",
                apiGroup: "machine.openshift.io",
                selection: { mode: "Partial", partial: { machineResourceSelector: {} } },
              },
            ],
          },
        }),
      ),
    ).toEqual([
      "spec.managedBootImages.machineManagers[0]: Invalid value: Only All or None selection mode is permitted for ControlPlaneMachineSets",
    ]);
  });
});

describe("ClusterVersion", () => {
  it("accepts an update by version and image", () => {
    expect(errors(CV, cv({ version: "4.19.17", image: `quay.io/openshift-release-dev/ocp-release@${DIGEST}`, force: false }))).toEqual([]);
    expect(errors(CV, cv({ version: "4.19.17", architecture: "Multi" }))).toEqual([]);
  });

  it("refuses an architecture next to an image, an architecture without a version, and an unknown architecture", () => {
    expect(errors(CV, cv({ architecture: "Multi", image: `quay.io/x@${DIGEST}`, version: "4.19.17" }))).toEqual([
      "spec.desiredUpdate: Invalid value: cannot set both Architecture and Image",
    ]);
    expect(errors(CV, cv({ architecture: "Multi", version: "" }))).toEqual([
      "spec.desiredUpdate: Invalid value: Version must be set if Architecture is set",
    ]);
    // Without a version at all the rule cannot be evaluated: cel-go's error, as the API server words it.
    expect(errors(CV, cv({ architecture: "Multi" }))).toEqual([
      'spec.desiredUpdate: Invalid value: "object": no such key: version evaluating rule: Version must be set if Architecture is set',
    ]);
    expect(errors(CV, cv({ architecture: "Single", version: "4.19.17" }))).toEqual([
      'spec.desiredUpdate.architecture: Unsupported value: "Single": supported values: "Multi", ""',
      NOT_CHECKED,
    ]);
  });
});

describe("hub kinds", () => {
  it("ClusterPermission: a binding needs a subject", () => {
    const cp = (spec: Record<string, unknown>) => ({ metadata: { name: "fleetskew" }, spec });
    const subject = { kind: "ServiceAccount", name: "fleetskew-reader", namespace: "open-cluster-management-agent-addon" };
    expect(errors(clusterPermissions.schema as Schema, cp({ clusterRoleBinding: { subject } }))).toEqual([]);
    expect(errors(clusterPermissions.schema as Schema, cp({ clusterRoleBinding: { name: "x" } }))).toEqual([
      "spec.clusterRoleBinding: Invalid value: Either subject or subjects has to exist in clusterRoleBinding",
    ]);
    expect(errors(clusterPermissions.schema as Schema, cp({ roleBindings: [{ namespace: "a", roleRef: { kind: "Role" } }] }))).toEqual([
      "spec.roleBindings: Invalid value: Either subject or subjects has to exist in every roleBinding",
    ]);
  });

  it("ManagedServiceAccount: rotation is required and a TTL must be above zero", () => {
    const msa = (spec: Record<string, unknown>) => ({ metadata: { name: "fleetskew" }, spec });
    expect(errors(managedServiceAccounts.schema as Schema, msa({ rotation: {} }))).toEqual([]);
    expect(errors(managedServiceAccounts.schema as Schema, msa({ rotation: {}, ttlSecondsAfterCreation: 0 }))).toEqual([
      "spec.ttlSecondsAfterCreation: Invalid value: 0: spec.ttlSecondsAfterCreation in body should be greater than 0",
    ]);
    expect(errors(managedServiceAccounts.schema as Schema, msa({}))).toEqual(["spec.rotation: Required value", NOT_CHECKED]);
  });
});

describe("updates", () => {
  it("ratchet: a value that was already invalid may stay, a changed one may not", () => {
    const stored = pinned("quay.io/example/app:latest");
    const relabelled = { ...stored, metadata: { name: "bundle", labels: { a: "b" } } };
    expect(errors(PIS, relabelled, stored)).toEqual([]);
    expect(errors(PIS, pinned("quay.io/example/app:latest", "quay.io/example/other:1"), stored)).toEqual([
      `spec.pinnedImages[1].name: Invalid value: "quay.io/example/other:1": the OCI Image reference must end with a valid '@sha256:<digest>' suffix, where '<digest>' is 64 characters long`,
      'spec.pinnedImages[1].name: Invalid value: "quay.io/example/other:1": the OCI Image name should follow the host[:port][/namespace]/name format, resembling a valid URL without the scheme',
    ]);
  });

  it("evaluate transition rules (oldSelf) only when there is an old value", () => {
    const schema: Schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: { pool: { type: "string", "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "pool is immutable" }] } },
        },
      },
    };
    expect(errors(schema, { metadata: {}, spec: { pool: "worker" } })).toEqual([]);
    expect(errors(schema, { metadata: {}, spec: { pool: "infra" } }, { metadata: {}, spec: { pool: "worker" } })).toEqual([
      'spec.pool: Invalid value: "infra": pool is immutable',
    ]);
  });

  it("show a rule at the root the object's name", () => {
    const schema: Schema = {
      type: "object",
      properties: { metadata: { type: "object" }, spec: { type: "object" } },
      "x-kubernetes-validations": [{ rule: "self.metadata.name == 'cluster'", message: "the only object is named cluster" }],
    };
    expect(errors(schema, { metadata: { name: "cluster", labels: { a: "b" } }, spec: {} })).toEqual([]);
    expect(errors(schema, { metadata: { name: "other" }, spec: {} })).toEqual(["<nil>: Invalid value: the only object is named cluster"]);
  });

  it("skip a rule marked unsupported, and word a messageExpression and a fieldPath as the API server does", () => {
    const schema: Schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: { url: { type: "string" }, size: { type: "integer" } },
          "x-kubernetes-validations": [
            { rule: "isURL(self.url)", message: "url must be a URL", unsupported: "calls isURL" },
            { rule: "self.size < 10", messageExpression: "'size ' + string(self.size) + ' is too large'", fieldPath: ".size" },
          ],
        },
      },
    };
    expect(errors(schema, { metadata: {}, spec: { url: "not a url", size: 12 } })).toEqual([
      "spec.size: Invalid value: size 12 is too large",
    ]);
  });
});
