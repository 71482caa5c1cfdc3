import { describe, expect, it } from "vitest";
import { pinnedImageSetName } from "./bundleManifest";
import {
  alwaysPullPod,
  diskVerdict,
  labelsForPool,
  poolsSelecting,
  precheckBundle,
  precheckKey,
  type PodLike,
  type PrecheckInput,
} from "./bundlePrechecks";
import { GiB, hex, manifest } from "./testing/bundles";

describe("aiming a PinnedImageSet at a pool (docs/openshift.md §21.3: pools select sets by machineConfigSelector)", () => {
  const role = (...values: string[]) =>
    values.length === 1
      ? { matchLabels: { "machineconfiguration.openshift.io/role": values[0]! } }
      : { matchExpressions: [{ key: "machineconfiguration.openshift.io/role", operator: "In", values }] };
  const pools = [
    { name: "master", machineConfigSelector: role("master") },
    { name: "worker", machineConfigSelector: role("worker") },
    { name: "infra", machineConfigSelector: role("worker", "infra") },
    { name: "gpu", machineConfigSelector: { matchLabels: { "example.com/accelerator": "nvidia" } } },
    { name: "broken", machineConfigSelector: { matchExpressions: [{ key: "x", operator: "Exists" }] } },
  ];
  it.each([
    ["a standard pool: its role", "worker", { "machineconfiguration.openshift.io/role": "worker" }, ["worker", "infra"]],
    [
      "a custom pool that also selects worker configs: its own role, so the worker pool stays out",
      "infra",
      { "machineconfiguration.openshift.io/role": "infra" },
      ["infra"],
    ],
    ["a pool selecting other labels: its matchLabels", "gpu", { "example.com/accelerator": "nvidia" }, ["gpu"]],
  ])("%s", (_rule, name, labels, selected) => {
    const pool = pools.find((p) => p.name === name)!;
    expect(labelsForPool(pool, pools)).toEqual(labels);
    expect(poolsSelecting(pools, labels)).toEqual(selected);
  });

  it("a pool no derivable labels match fails the precheck", () => {
    expect(labelsForPool(pools[4]!, pools)).toBeNull();
    const checks = precheckBundle(input({ nodes: [], pools: [{ ...pools[4]!, degraded: false, updating: false, degradedMessage: null }] }));
    expect(checks.find((c) => c.id === "pool-not-selectable")).toMatchObject({ status: "fail", pool: "broken" });
  });
});

describe("the MCO's disk check (docs/openshift.md §21.3)", () => {
  it.each([
    ["room for twice the images", 100 * GiB, 40 * GiB, true],
    ["exactly at the limit is refused (strictly less than)", 96 * GiB, 40 * GiB, false],
    ["less than 16 GiB allocatable is refused whatever the images", 15 * GiB, 1, false],
    ["unknown allocatable", null, 1, null],
  ])("%s", (_rule, allocatable, images, ok) => {
    expect(diskVerdict(allocatable as number | null, images).ok).toBe(ok);
  });
});

const input = (over: Partial<PrecheckInput> = {}): PrecheckInput => ({
  manifest,
  digest: hex("d"),
  pools: [
    {
      name: "master",
      machineConfigSelector: { matchLabels: { "machineconfiguration.openshift.io/role": "master" } },
      degraded: false,
      updating: false,
      degradedMessage: null,
    },
    {
      name: "worker",
      machineConfigSelector: { matchLabels: { "machineconfiguration.openshift.io/role": "worker" } },
      degraded: false,
      updating: false,
      degradedMessage: null,
    },
  ],
  nodes: [
    { name: "m1", pool: "master", ephemeralBytes: 120 * GiB, ready: true, diskPressure: false },
    { name: "w1", pool: "worker", ephemeralBytes: 120 * GiB, ready: true, diskPressure: false },
    { name: "w2", pool: "worker", ephemeralBytes: 40 * GiB, ready: true, diskPressure: false },
  ],
  alwaysPullPods: [],
  pinnedImageSets: [],
  unavailable: [],
  ...over,
});

describe("prechecks", () => {
  it("fails a pool with a node short of disk, naming the node and the figures", () => {
    const checks = precheckBundle(input());
    expect(checks.find((c) => c.id === "disk-space" && c.pool === "master")!.status).toBe("pass");
    const worker = checks.find((c) => c.id === "disk-space" && c.pool === "worker")!;
    expect(worker).toMatchObject({ status: "fail", items: ["w2"] });
    expect(worker.detail).toContain("w2 has 40.0 GiB and needs 46.0 GiB");
    expect(worker.detail).toContain('"storage available is less than minimum required"');
    // checkNodeAllocatableStorage reads allocatable, which deleting files does not raise: grow the disk or use a smaller bundle.
    expect(worker.remedy).toBe(
      "Allocatable ephemeral storage is the part of the disk the kubelet gives pods; deleting files does not raise it. Grow the disk of w2 or use a smaller bundle. Then check again.",
    );
  });

  it("fails a pool with a node under DiskPressure, whatever its allocatable storage (the MCO pulls nothing there)", () => {
    const checks = precheckBundle(
      input({
        nodes: [
          { name: "m1", pool: "master", ephemeralBytes: 120 * GiB, ready: true, diskPressure: true },
          { name: "w1", pool: "worker", ephemeralBytes: 120 * GiB, ready: true, diskPressure: null },
        ],
      }),
    );
    const master = checks.find((c) => c.id === "disk-space" && c.pool === "master")!;
    expect(master).toMatchObject({ status: "fail", title: "Not enough disk on 1 node of master", items: ["m1"] });
    expect(master.detail).toBe(
      'm1 reports DiskPressure=True: the MCO pulls nothing onto a node whose DiskPressure is not False ("node … is reporting OutOfDisk=…").',
    );
    expect(master.remedy).toMatch(/^Free disk space on m1 .* until the node reports DiskPressure=False\. Then check again\.$/);
    // No DiskPressure condition (or a snapshot from before it was read) is not a failure.
    expect(checks.find((c) => c.id === "disk-space" && c.pool === "worker")!.status).toBe("pass");

    // Short of allocatable storage and under pressure: one check names both.
    const both = precheckBundle(
      input({ nodes: [{ name: "w2", pool: "worker", ephemeralBytes: 40 * GiB, ready: true, diskPressure: true }] }),
    ).find((c) => c.id === "disk-space" && c.pool === "worker")!;
    expect(both).toMatchObject({ status: "fail", items: ["w2"] });
    expect(both.detail).toMatch(/w2 has 40\.0 GiB and needs 46\.0 GiB\. w2 reports DiskPressure=True/);
  });

  it("keys each finding by check, pool and what it names, so a changed warning is a new one", () => {
    const pods = [{ namespace: "shop", name: "cart-1", node: "w1", containers: ["main"] }];
    const key = (over: Partial<PrecheckInput>) => precheckBundle(input(over)).find((c) => c.id === "always-pull-pods")!.key;
    expect(key({ alwaysPullPods: pods })).toBe(key({ alwaysPullPods: [...pods] }));
    expect(key({ alwaysPullPods: pods })).toMatch(/^always-pull-pods\/cluster\/[0-9a-f]{12}$/);
    expect(key({ alwaysPullPods: [...pods, { namespace: "shop", name: "cart-2", node: "w2", containers: ["main"] }] })).not.toBe(
      key({ alwaysPullPods: pods }),
    );
    expect(precheckKey({ id: "pool-updating", pool: "worker", items: [] })).toBe("pool-updating/worker");
    expect(precheckKey({ id: "x", pool: null, items: ["b", "a"] })).toBe(precheckKey({ id: "x", pool: null, items: ["a", "b"] }));
  });

  it("keys pods that always pull by their workload and images, not their names, which change with every rollout and run", () => {
    const pod = (name: string, over: { owner?: [string, string]; hash?: string; image?: string; ns?: string } = {}): PodLike => ({
      metadata: {
        name,
        namespace: over.ns ?? "shop",
        labels: over.hash ? { app: "cart", "pod-template-hash": over.hash } : { app: "cart" },
        ownerReferences: over.owner
          ? [
              { kind: "Node", name: "w1" }, // not the controller
              { kind: over.owner[0], name: over.owner[1], controller: true },
            ]
          : undefined,
      },
      spec: {
        nodeName: "w1",
        containers: [
          { name: "main", image: over.image ?? "registry.example.com/shop/cart@sha256:aaa", imagePullPolicy: "Always" },
          { name: "sidecar", image: "registry.example.com/proxy@sha256:bbb", imagePullPolicy: "IfNotPresent" },
        ],
      },
      status: { phase: "Running" },
    });
    const key = (...pods: PodLike[]) =>
      precheckBundle(input({ alwaysPullPods: pods.map((p) => alwaysPullPod(p)!) })).find((c) => c.id === "always-pull-pods")!.key;

    // A Deployment's pod, replaced by a rolling restart (new ReplicaSet, new pod name): the same warning.
    const deployed = key(pod("cart-7d9f8b6c5-x2k4q", { owner: ["ReplicaSet", "cart-7d9f8b6c5"], hash: "7d9f8b6c5" }));
    expect(key(pod("cart-5f6b7c8d9-p9r7t", { owner: ["ReplicaSet", "cart-5f6b7c8d9"], hash: "5f6b7c8d9" }))).toBe(deployed);
    // Scaled out: more pods of the same workload pulling the same image are the same warning.
    expect(
      key(
        pod("cart-5f6b7c8d9-p9r7t", { owner: ["ReplicaSet", "cart-5f6b7c8d9"], hash: "5f6b7c8d9" }),
        pod("cart-5f6b7c8d9-zz81m", { owner: ["ReplicaSet", "cart-5f6b7c8d9"], hash: "5f6b7c8d9" }),
      ),
    ).toBe(deployed);
    // A new image, or another workload, is a new warning.
    expect(
      key(pod("cart-6a-x", { owner: ["ReplicaSet", "cart-6a"], hash: "6a", image: "registry.example.com/shop/cart@sha256:ccc" })),
    ).not.toBe(deployed);
    expect(key(pod("checkout-7d9f8b6c5-x2k4q", { owner: ["ReplicaSet", "checkout-7d9f8b6c5"], hash: "7d9f8b6c5" }))).not.toBe(deployed);

    // A CronJob's pods: a new Job and a new pod every run, the same warning.
    const nightly = key(pod("report-29012345-abcde", { owner: ["Job", "report-29012345"] }));
    expect(key(pod("report-29012405-fghij", { owner: ["Job", "report-29012405"] }))).toBe(nightly);
    expect(key(pod("export-29012405-fghij", { owner: ["Job", "export-29012405"] }))).not.toBe(nightly);
    // A StatefulSet keeps its name; a DaemonSet's pods differ per node, not per workload.
    expect(key(pod("db-0", { owner: ["StatefulSet", "db"] }))).toBe(key(pod("db-1", { owner: ["StatefulSet", "db"] })));
    expect(key(pod("agent-a1b2c", { owner: ["DaemonSet", "agent"] }))).not.toBe(key(pod("agent-a1b2c", { owner: ["DaemonSet", "other"] })));

    // A bare pod: by namespace and image.
    expect(key(pod("debug-1"))).toBe(key(pod("debug-2")));
    expect(key(pod("debug-1"))).not.toBe(key(pod("debug-1", { image: "registry.example.com/tools@sha256:ddd" })));
    expect(key(pod("debug-1"))).not.toBe(key(pod("debug-1", { ns: "other" })));

    // What is shown still names the pods.
    const shown = precheckBundle(input({ alwaysPullPods: [alwaysPullPod(pod("db-0", { owner: ["StatefulSet", "db"] }))!] })).find(
      (c) => c.id === "always-pull-pods",
    )!;
    expect(shown.items).toEqual(["shop/db-0"]);
    expect(alwaysPullPod({ ...pod("done"), status: { phase: "Succeeded" } })).toBeNull();
  });

  it("fails a degraded pool, warns for an updating one, pods that always pull and other pinned sets", () => {
    const checks = precheckBundle(
      input({
        nodes: [],
        pools: [
          {
            name: "master",
            machineConfigSelector: undefined,
            degraded: true,
            updating: false,
            degradedMessage: "node m1 is reporting: boom",
          },
          { name: "worker", machineConfigSelector: undefined, degraded: false, updating: true, degradedMessage: null },
        ],
        alwaysPullPods: [{ namespace: "shop", name: "cart-1", node: "w1", containers: ["main"] }],
        pinnedImageSets: [{ name: "old", labels: { "fleetskew.io/release": "4.19.10" }, images: ["x"] }],
      }),
    );
    const status = Object.fromEntries(checks.map((c) => [`${c.id}/${c.pool ?? ""}`, c.status]));
    expect(status).toMatchObject({
      "pool-degraded/master": "fail",
      "pool-updating/worker": "warn",
      "always-pull-pods/": "warn",
      "existing-pinned-image-sets/": "warn",
    });
    expect(checks.find((c) => c.id === "existing-pinned-image-sets")!.detail).toContain("old (bundle for 4.19.10)");
  });

  it("recognises its own sets as already applied; unreadable parts become warnings", () => {
    const own = pinnedImageSetName(manifest, hex("d"), "worker");
    const checks = precheckBundle(
      input({
        nodes: [],
        pinnedImageSets: [{ name: own, labels: {}, images: [] }],
        unavailable: [{ part: "pods", reason: "pods is forbidden" }],
      }),
    );
    expect(checks.find((c) => c.id === "already-applied")!.status).toBe("pass");
    expect(checks.find((c) => c.id === "existing-pinned-image-sets")!.status).toBe("pass");
    expect(checks.find((c) => c.id === "always-pull-pods")).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("pods is forbidden"),
    });
  });
});

/** The prechecks' disk rule follows checkNodeAllocatableStorage / checkImagePayloadStorage (pkg/daemon/pinned_image_set.go). */
describe("prechecks follow the MCO's disk check, not whole image sizes", () => {
  const layer = (c: string, size: number) => ({ digest: `sha256:${hex(c)}`, sizeBytes: size });
  const shared = {
    ...manifest,
    // Three 5 GiB images sharing a 4 GiB base layer: 15 GiB by whole sizes, 7 GiB counted as the MCO counts.
    images: manifest.images.map((i, n) => ({ ...i, layers: [layer("0", 4 * GiB), layer(String(n + 1), GiB)] })),
  };
  const worker = (over: Partial<PrecheckInput>) => precheckBundle(input(over)).find((c) => c.id === "disk-space" && c.pool === "worker")!;

  it("getImageSize counts each layer digest once: a node the whole sizes would fail passes", () => {
    expect(worker({})).toMatchObject({ status: "fail", items: ["w2"] });
    expect(worker({ manifest: shared })).toMatchObject({ status: "pass" });
  });

  it("checkImagePayloadStorage skips images already on the node", () => {
    const nodes = [
      {
        name: "w2",
        pool: "worker",
        ephemeralBytes: 40 * GiB,
        ready: true,
        diskPressure: false,
        images: manifest.images.slice(1).map((i) => i.name),
      },
    ];
    expect(worker({ nodes })).toMatchObject({ status: "pass" });
  });

  it("checkNodeReady: DiskPressure=Unknown blocks as True does; NotReady warns with the MCO's message", () => {
    const nodes = [
      {
        name: "w1",
        pool: "worker",
        ephemeralBytes: 120 * GiB,
        ready: false,
        diskPressure: null,
        conditions: [
          { type: "DiskPressure", status: "Unknown" },
          { type: "Ready", status: "Unknown" },
        ],
      },
    ];
    expect(worker({ nodes })).toMatchObject({ status: "fail", items: ["w1"] });
    expect(worker({ nodes }).detail).toContain("w1 reports DiskPressure=Unknown");
    const notReady = precheckBundle(input({ nodes })).find((c) => c.id === "nodes-not-ready")!;
    expect(notReady.detail).toContain('"node w1 is reporting NotReady=Unknown"');
  });
});

/** syncMachineConfigPool (pkg/daemon/pinned_image_set.go) stops a node's sync at the first failing set. */
describe("another set failing on a node holds this bundle back there", () => {
  const failing = (error: string) => ({
    name: "w1",
    pool: "worker",
    ephemeralBytes: 120 * GiB,
    ready: true,
    diskPressure: false,
    pinned: [{ set: "app-images", currentGeneration: null, desiredGeneration: 2, lastFailedGeneration: 2, error }],
  });
  it("warns, naming the node, the set and the MCO's error", () => {
    const check = precheckBundle(
      input({ nodes: [failing('failed to pull image "x" (5 tries): timed out waiting for the condition')] }),
    ).find((c) => c.id === "pinned-sync-failing")!;
    expect(check).toMatchObject({ status: "warn", pool: "worker", items: ["w1"] });
    expect(check.detail).toMatch(/stops at the first error, so this bundle's images are not pulled there either/);
  });
  it("the prefetch timeout's requeue holds nothing back", () => {
    const checks = precheckBundle(input({ nodes: [failing("requeue: prefetching images incomplete after timeout: 5m0s")] }));
    expect(checks.find((c) => c.id === "pinned-sync-failing")).toBeUndefined();
  });
});
