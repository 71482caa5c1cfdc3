import { describe, expect, it } from "vitest";
import clusterPermissions from "../../../data/openapi/clusterpermissions.json";
import clusterVersions from "../../../data/openapi/clusterversions.json";
import machineConfigurations from "../../../data/openapi/machineconfigurations.json";
import managedServiceAccounts from "../../../data/openapi/managedserviceaccounts.json";
import pinnedImageSets from "../../../data/openapi/pinnedimagesets.json";
import { HUB_KINDS } from "../hub/kinds";
import { KINDS } from "../kinds";
import { CHECKED_FORMATS, isDateTime, isRequestURI, SUPPORTED_STRING_FORMATS } from "./formats";
import { releaseLines, resolveSchema } from "./schemas";
import { coerceObject } from "./structural";
import { errorString, validateObject, type Schema } from "./validate";

const kind = (name: string) => KINDS.find((k) => k.kind === name)!;
const MC = kind("MachineConfiguration");
const CV = kind("ClusterVersion");
const schemaAt = (name: string, minor: number, featureSet?: string) => resolveSchema(kind(name), { minor, featureSet })!;

const machineConfiguration = (spec: Record<string, unknown>, status?: Record<string, unknown>): Record<string, unknown> => ({
  apiVersion: "operator.openshift.io/v1",
  kind: "MachineConfiguration",
  metadata: { name: "cluster" },
  spec: { managementState: "Managed", ...spec },
  ...(status ? { status } : {}),
});
const MANUAL = { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: "4.16.0" } };

describe("the schema of a cluster's release", () => {
  it("is its release line's, the nearest older line's, or the oldest line's for a cluster older than all", () => {
    expect(releaseLines(MC)).toEqual(["4.16", "4.17", "4.18", "4.19", "4.20", "4.21", "4.22", "4.23"]);
    expect(schemaAt("MachineConfiguration", 19).release).toBe("4.19");
    expect(schemaAt("MachineConfiguration", 19).source).toMatchObject({
      ref: "release-4.19",
      commit: "1ebdd7bba8e6c503a1f61c6d467ed877783826e1",
    });
    expect(schemaAt("MachineConfiguration", 24).release).toBe("4.23");
    expect(schemaAt("MachineConfiguration", 12).release).toBe("4.16");
    expect(schemaAt("PinnedImageSet", 18).release).toBe("4.19");
    // The hub's kinds have one schema whatever the version.
    expect(resolveSchema(HUB_KINDS.managedServiceAccount, { minor: 19 })?.release).toBeUndefined();
  });

  it("has spec.bootImageSkewEnforcement from 4.22, and from 4.21 in TechPreviewNoUpgrade and DevPreviewNoUpgrade", () => {
    const has = (minor: number, featureSet?: string) =>
      !!schemaAt("MachineConfiguration", minor, featureSet).schema.properties!.spec!.properties!.bootImageSkewEnforcement;
    expect([19, 20, 21, 22, 23].map((m) => has(m, "Default"))).toEqual([false, false, false, true, true]);
    expect([20, 21].map((m) => has(m, "TechPreviewNoUpgrade"))).toEqual([false, true]);
    expect([20, 21].map((m) => has(m, "DevPreviewNoUpgrade"))).toEqual([false, true]);
  });

  it("differs where the releases differ: 4.19 lets MachineSets only into managedBootImages, 4.22 ControlPlaneMachineSets too", () => {
    const cpms = machineConfiguration({
      managedBootImages: {
        machineManagers: [{ apiGroup: "machine.openshift.io", resource: "controlplanemachinesets", selection: { mode: "All" } }],
      },
    });
    expect(validateObject(schemaAt("MachineConfiguration", 19).schema, cpms).map(errorString)[0]).toBe(
      'spec.managedBootImages.machineManagers[0].resource: Unsupported value: "controlplanemachinesets": supported values: "machinesets"',
    );
    expect(validateObject(schemaAt("MachineConfiguration", 22).schema, cpms)).toEqual([]);
  });
});

describe("pruning (apiextensions-apiserver pruning/algorithm.go)", () => {
  it("drops on 4.19 the skew-enforcement fields 4.22 keeps, and names them as the API server does", () => {
    const object = machineConfiguration({ bootImageSkewEnforcement: MANUAL }, { bootImageSkewEnforcementStatus: { mode: "Manual" } });
    const on419 = structuredClone(object);
    expect(coerceObject(schemaAt("MachineConfiguration", 19).schema, on419)).toEqual([
      "spec.bootImageSkewEnforcement",
      "status.bootImageSkewEnforcementStatus",
    ]);
    expect(on419.spec).not.toHaveProperty("bootImageSkewEnforcement");
    expect(on419.status).toEqual({});
    const on422 = structuredClone(object);
    expect(coerceObject(schemaAt("MachineConfiguration", 22).schema, on422)).toEqual([]);
    expect((on422.spec as Record<string, unknown>).bootImageSkewEnforcement).toEqual(MANUAL);
  });

  it("drops unknown fields at any depth, in list items, sorted; keeps apiVersion, kind and metadata at the root; keeps what x-kubernetes-preserve-unknown-fields holds", () => {
    const object: Record<string, unknown> = {
      ...machineConfiguration({
        zeta: 1,
        unsupportedConfigOverrides: { anything: { goes: true } },
        managedBootImages: {
          machineManagers: [{ apiGroup: "machine.openshift.io", resource: "machinesets", selection: { mode: "All" }, extra: "x" }],
        },
      }),
      extra: true,
    };
    const dropped = coerceObject(schemaAt("MachineConfiguration", 22).schema, object);
    expect(dropped).toEqual(["extra", "spec.managedBootImages.machineManagers[0].extra", "spec.zeta"]);
    expect(object).toMatchObject({ apiVersion: "operator.openshift.io/v1", kind: "MachineConfiguration", metadata: { name: "cluster" } });
    expect((object.spec as Record<string, unknown>).unsupportedConfigOverrides).toEqual({ anything: { goes: true } });
  });

  it("drops metadata fields ObjectMeta does not have (first, as GetObjectMetaWithOptions reports them)", () => {
    const object: Record<string, unknown> = {
      ...machineConfiguration({ zeta: 1 }),
      metadata: {
        name: "cluster",
        labels: { a: "b" },
        bogus: 1,
        ownerReferences: [{ apiVersion: "v1", kind: "X", name: "x", uid: "u", extra: 1 }],
      },
    };
    expect(coerceObject(schemaAt("MachineConfiguration", 22).schema, object)).toEqual([
      "metadata.bogus",
      "metadata.ownerReferences[0].extra",
      "spec.zeta",
    ]);
    expect(object.metadata).toEqual({
      name: "cluster",
      labels: { a: "b" },
      ownerReferences: [{ apiVersion: "v1", kind: "X", name: "x", uid: "u" }],
    });
  });
});

describe("nulls and defaults (apiextensions-apiserver defaulting/prunenulls.go, algorithm.go)", () => {
  it("fills MachineConfiguration's logLevel and operatorLogLevel, and a null where the schema has a default; drops a null without one", () => {
    const object = machineConfiguration({ logLevel: null, forceRedeploymentReason: null });
    coerceObject(schemaAt("MachineConfiguration", 19).schema, object);
    expect(object.spec).toEqual({ managementState: "Managed", logLevel: "Normal", operatorLogLevel: "Normal" });
    const explicit = machineConfiguration({ logLevel: "Debug" });
    coerceObject(schemaAt("MachineConfiguration", 19).schema, explicit);
    expect(explicit.spec).toMatchObject({ logLevel: "Debug", operatorLogLevel: "Normal" });
  });

  it("defaults nothing under an absent parent: no spec, no logLevel", () => {
    const object: Record<string, unknown> = {
      apiVersion: "operator.openshift.io/v1",
      kind: "MachineConfiguration",
      metadata: { name: "cluster" },
    };
    coerceObject(schemaAt("MachineConfiguration", 22).schema, object);
    expect(object).not.toHaveProperty("spec");
  });

  it("fills a ManagedServiceAccount's rotation as the hub's CRD says", () => {
    const msa = { metadata: { name: "fleetskew", namespace: "c1" }, spec: { rotation: {} } };
    coerceObject(managedServiceAccounts.schema as Schema, msa);
    expect(msa.spec.rotation).toEqual({ enabled: true, validity: "8640h0m0s" });
  });

  it("default only what the extracted schemas declare (a test to revisit when an extraction adds defaults)", () => {
    const defaults: string[] = [];
    const walk = (node: Schema | undefined, path: string) => {
      if (!node) return;
      if (node.default !== undefined) defaults.push(`${path}=${JSON.stringify(node.default)}`);
      for (const [k, v] of Object.entries(node.properties ?? {})) walk(v, `${path}.${k}`);
      walk(node.items, `${path}[]`);
      if (typeof node.additionalProperties === "object") walk(node.additionalProperties, `${path}{}`);
    };
    for (const s of machineConfigurations.schemas) walk(s as Schema, "MachineConfiguration");
    for (const s of [...clusterVersions.schemas, ...pinnedImageSets.schemas, clusterPermissions.schema]) walk(s as Schema, "other");
    walk(managedServiceAccounts.schema as Schema, "ManagedServiceAccount");
    expect([...new Set(defaults)].sort()).toEqual([
      'MachineConfiguration.spec.logLevel="Normal"',
      'MachineConfiguration.spec.operatorLogLevel="Normal"',
      "ManagedServiceAccount.spec.rotation.enabled=true",
      'ManagedServiceAccount.spec.rotation.validity="8640h0m0s"',
    ]);
  });
});

describe("formats (kube-openapi strfmt, as apiextensions-apiserver keeps them)", () => {
  it("the extracted schemas name only date-time and uri on strings (checked), and int32/int64 on integers", () => {
    const used = new Set<string>();
    const walk = (node: Schema | undefined) => {
      if (!node) return;
      if (node.format) used.add(`${node.type}:${node.format}`);
      Object.values(node.properties ?? {}).forEach(walk);
      walk(node.items);
      if (typeof node.additionalProperties === "object") walk(node.additionalProperties);
    };
    for (const s of [
      ...machineConfigurations.schemas,
      ...clusterVersions.schemas,
      ...pinnedImageSets.schemas,
      clusterPermissions.schema,
      managedServiceAccounts.schema,
    ])
      walk(s as Schema);
    expect([...used].sort()).toEqual(["integer:int32", "integer:int64", "string:date-time", "string:uri"]);
    for (const f of used) if (f.startsWith("string:")) expect(CHECKED_FORMATS).toContain(f.slice(7).replace(/-/g, ""));
    expect(SUPPORTED_STRING_FORMATS).toContain("datetime");
  });

  it("date-time: strfmt IsDateTime", () => {
    for (const ok of ["2026-11-27T00:18:27Z", "2026-11-27t00:18:27.123z", "2024-02-29T23:59:59+05:30", "2026-11-27T00:18:27.5-01:00"])
      expect(isDateTime(ok), ok).toBe(true);
    for (const bad of [
      "yesterday",
      "2026-11-27",
      "2026-11-27 00:18:27Z",
      "2026-02-30T00:00:00Z",
      "2025-02-29T00:00:00Z",
      "2026-11-27T24:00:00Z",
      "2026-11-27T00:18:27",
      "26-11-27T00:18:27Z",
    ])
      expect(isDateTime(bad), bad).toBe(false);
  });

  it("uri: Go's url.ParseRequestURI", () => {
    for (const ok of [
      "https://access.redhat.com/solutions/1",
      "http://[::1]:8080/x",
      "urn:isbn:123",
      "/relative/path",
      "https://user:pw@host/p?q=1#f",
      "*",
    ])
      expect(isRequestURI(ok), ok).toBe(true);
    for (const bad of [
      "",
      "not a uri",
      "access.redhat.com/x",
      "https://host:port/",
      "https://ho st/",
      "/a%zz",
      ":no-scheme",
      "https://host/\u0001",
    ])
      expect(isRequestURI(bad), bad).toBe(false);
  });

  it("a /status write with a malformed date-time or uri is refused in the API server's words, and blocks the CEL rules", () => {
    const cv = {
      metadata: { name: "version" },
      spec: { clusterID: "c1" },
      status: {
        availableUpdates: null,
        desired: { version: "4.22.3", image: "quay.io/openshift-release-dev/ocp-release@sha256:" + "a".repeat(64) },
        observedGeneration: 1,
        versionHash: "h",
        conditions: [{ type: "Available", status: "True", lastTransitionTime: "yesterday" }],
        conditionalUpdates: [
          {
            release: { version: "4.22.4", image: "quay.io/x@sha256:" + "b".repeat(64) },
            risks: [{ name: "R", message: "m", url: "see the docs", matchingRules: [{ type: "Always" }] }],
            conditions: [{ type: "Recommended", status: "False", reason: "R", message: "m", lastTransitionTime: "2026-11-27T00:00:00Z" }],
          },
        ],
      },
    };
    const errors = validateObject(schemaAt("ClusterVersion", 22).schema, cv).map(errorString);
    expect(errors).toContain(
      'status.conditions[0].lastTransitionTime: Invalid value: "yesterday": status.conditions[0].lastTransitionTime in body must be of type date-time: "yesterday"',
    );
    expect(errors).toContain(
      'status.conditionalUpdates[0].risks[0].url: Invalid value: "see the docs": status.conditionalUpdates[0].risks[0].url in body must be of type uri: "see the docs"',
    );
    expect(errors.at(-1)).toMatch(/^<nil>: Invalid value: "null": some validation rules were not checked/);
    expect(CV.kind).toBe("ClusterVersion");
  });
});
