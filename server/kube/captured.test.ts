import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CapturedCluster } from "./captured";
import { KubeError } from "./client";
import { parseDumpFile, type DumpObject } from "./dumps";
import { KINDS } from "./kinds";
import {
  readAdminAcks,
  readBootImagesConfigMap,
  readClusterObjects,
  readMachineConfigs,
  readMachineSets,
  readProvisioning,
} from "./readers";

const configMap = (namespace: string, name: string, labels?: Record<string, string>): DumpObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace, ...(labels ? { labels } : {}) },
  data: { name },
});
const machineConfig = (name: string, role: string): DumpObject => ({
  apiVersion: "machineconfiguration.openshift.io/v1",
  kind: "MachineConfig",
  metadata: { name, labels: { "machineconfiguration.openshift.io/role": role } },
  spec: {},
});

async function failure(p: Promise<unknown>): Promise<KubeError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KubeError);
  return error as KubeError;
}

describe("CapturedCluster", () => {
  it("reads a kind absent from the capture as not served, and a missing object as not found", async () => {
    const captured = new CapturedCluster([configMap("openshift-config", "admin-acks")]);
    const notServed = await failure(captured.get(KINDS.clusterVersion, "version"));
    expect([notServed.kind, notServed.message]).toEqual(["not-served", "ClusterVersion is not in the capture"]);
    expect((await failure(captured.list(KINDS.machineSet, { namespace: "openshift-machine-api" }))).kind).toBe("not-served");
    const notFound = await failure(captured.get(KINDS.configMap, "coreos-bootimages", "openshift-machine-config-operator"));
    expect([notFound.kind, notFound.message]).toEqual([
      "not-found",
      "ConfigMap openshift-machine-config-operator/coreos-bootimages is not in the capture",
    ]);
    // Through the readers, both are "not available", never an error; which one is kept.
    expect(await readBootImagesConfigMap(captured)).toEqual({
      status: "not-available",
      reason: "ConfigMap openshift-machine-config-operator/coreos-bootimages is not in the capture",
      missing: "object",
    });
    expect(await readMachineSets(captured)).toMatchObject({ status: "not-available", missing: "kind" });
    expect(await readProvisioning(captured)).toEqual({
      status: "not-available",
      reason: "Provisioning is not in the capture",
      missing: "kind",
    });
    expect(await readAdminAcks(captured)).toMatchObject({ status: "ok", value: { data: { name: "admin-acks" } } });
  });

  it("gets namespaced objects only in their namespace", async () => {
    const captured = new CapturedCluster([configMap("openshift-config", "admin-acks")]);
    expect(await captured.get(KINDS.configMap, "admin-acks", "openshift-config")).toMatchObject({ metadata: { name: "admin-acks" } });
    expect((await failure(captured.get(KINDS.configMap, "admin-acks", "openshift-config-managed"))).kind).toBe("not-found");
  });

  it("lists in one namespace or all, in key order, honouring label selectors", async () => {
    const captured = new CapturedCluster([
      configMap("b", "two", { app: "x" }),
      configMap("a", "one", { app: "x", tier: "gold" }),
      configMap("a", "three"),
      machineConfig("99-worker-ssh", "worker"),
      machineConfig("00-master", "master"),
    ]);
    const names = (items: unknown[]) => items.map((o) => (o as DumpObject).metadata.name);
    expect(names(await captured.list(KINDS.configMap))).toEqual(["one", "three", "two"]);
    expect(names(await captured.list(KINDS.configMap, { namespace: "a" }))).toEqual(["one", "three"]);
    expect(names(await captured.list(KINDS.configMap, { namespace: "c" }))).toEqual([]);
    expect(names(await captured.list(KINDS.configMap, { labelSelector: "app=x" }))).toEqual(["one", "two"]);
    expect(names(await captured.list(KINDS.configMap, { labelSelector: "app=x,tier notin (gold)" }))).toEqual(["two"]);
    expect(names(await captured.list(KINDS.configMap, { labelSelector: "!app" }))).toEqual(["three"]);
    const workers = await readMachineConfigs(captured, "machineconfiguration.openshift.io/role=worker");
    expect(workers.status === "ok" && workers.items.map((m) => m.metadata.name)).toEqual(["99-worker-ssh"]);
    const bad = await failure(captured.list(KINDS.configMap, { labelSelector: "app in x" }));
    expect(bad.kind).toBe("invalid");
  });

  it("serves a kind only at the version it was captured at, and says which it has", async () => {
    const captured = new CapturedCluster([
      {
        apiVersion: "machineconfiguration.openshift.io/v1alpha1",
        kind: "MachineConfigNode",
        metadata: { name: "worker-0" },
      },
    ]);
    const error = await failure(captured.list(KINDS.machineConfigNode));
    expect([error.kind, error.message]).toEqual([
      "not-served",
      "MachineConfigNode is in the capture only as machineconfiguration.openshift.io/v1alpha1, not machineconfiguration.openshift.io/v1",
    ]);
  });

  it("keeps the last of duplicate objects and reports them; callers cannot change the capture", async () => {
    const first = configMap("openshift-config", "admin-acks");
    const second = { ...configMap("openshift-config", "admin-acks"), data: { second: "yes" } };
    const captured = new CapturedCluster([first, second, machineConfig("00-master", "master"), machineConfig("00-master", "master")]);
    expect(captured.duplicates).toEqual(["ConfigMap openshift-config/admin-acks", "MachineConfig 00-master"]);
    const got = (await captured.get(KINDS.configMap, "admin-acks", "openshift-config")) as DumpObject;
    expect(got.data).toEqual({ second: "yes" });
    (got.data as Record<string, string>).second = "changed";
    expect(((await captured.get(KINDS.configMap, "admin-acks", "openshift-config")) as DumpObject).data).toEqual({ second: "yes" });
  });

  it("reads the reference cluster's dumps like the live cluster: everything but what the dumps leave out", async () => {
    const dir = path.join(__dirname, "../simulator/fixtures/prod-east");
    const objects = readdirSync(dir).flatMap((f) => parseDumpFile(f, readFileSync(path.join(dir, f), "utf8")).objects);
    const read = await readClusterObjects(new CapturedCluster(objects));
    const status = Object.fromEntries(Object.entries(read).map(([k, r]) => [k, r.status]));
    expect(status).toMatchObject({
      clusterVersion: "ok",
      machineConfigOperator: "ok",
      machineSets: "ok",
      bootImages: "ok",
      pools: "ok",
      nodes: "ok",
      infrastructure: "not-available",
      adminGates: "not-available",
    });
    expect(read.machineSets.status === "ok" && read.machineSets.items).toHaveLength(4);
  });
});
