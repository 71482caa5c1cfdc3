import { describe, expect, it } from "vitest";
import { Fleet } from "./cluster";
import { generateFleet } from "./scenarios/generate";

describe("bounded materialization", () => {
  it("rebuilds dropped clusters identically and never drops one that was written to", () => {
    const fleet = new Fleet(undefined, 2);
    for (const spec of generateFleet(6, 4)) fleet.add(spec);
    const [a, b, c, d] = fleet.list();
    const mcKind = a!.kinds.find((k) => k.kind === "MachineConfiguration")!;
    const snapshot = JSON.stringify(a!.store.list(mcKind, undefined));

    const cmKind = b!.kinds.find((k) => k.kind === "ConfigMap")!;
    b!.store.create(cmKind, "openshift-config", { metadata: { name: "written" } });
    // Reading a cluster's store materialises it: a is now the least recently used and untouched, so dropped.
    for (const touched of [c!, d!]) expect(touched.store.list(mcKind, undefined).length).toBeGreaterThan(0);

    expect(a!.materialized).toBe(false);
    expect(b!.materialized).toBe(true);
    expect(b!.store.get(cmKind, "openshift-config", "written").metadata.name).toBe("written");
    expect(JSON.stringify(a!.store.list(mcKind, undefined))).toBe(snapshot);
  });
});
