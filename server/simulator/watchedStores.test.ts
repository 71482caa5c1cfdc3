import { describe, expect, it } from "vitest";
import { Fleet } from "./cluster";
import type { WatchEvent } from "./objectStore";
import { prodEastObjects } from "./scenarios/prodEast";

/*
 * A large simulated fleet keeps only some clusters' objects in memory and builds the others again
 * from their spec when asked. A collector watches every cluster it sweeps: those watches must not
 * keep every cluster in memory, and must still see what is written after a rebuild.
 */
describe("watches on a fleet that keeps only some clusters in memory", () => {
  const fleetOf = (size: number, maxMaterialized: number) => {
    const fleet = new Fleet(undefined, maxMaterialized);
    for (let i = 0; i < size; i++)
      fleet.add({ name: `c${i}`, ocpVersion: "4.19.10", token: `t${i}`, readOnlyToken: `r${i}`, objects: prodEastObjects });
    return fleet;
  };

  it("a watched cluster that nothing wrote to is dropped like any other, and its watch sees the writes after it is built again", () => {
    const fleet = fleetOf(4, 2);
    const watched = fleet.get("c0")!;
    const events: WatchEvent[] = [];
    const subscription = watched.store.watch(watched.store.resourceVersion, (e) => events.push(e));
    expect(subscription.backlog).toEqual([]);
    for (const name of ["c1", "c2", "c3"]) void fleet.get(name)!.store;
    expect(watched.materialized).toBe(false);

    const info = watched.kinds.find((k) => k.kind === "MachineSet")!;
    const [set] = watched.store.list(info, "openshift-machine-api");
    watched.store.replace(info, "openshift-machine-api", set!.metadata.name!, {
      ...set!,
      metadata: { ...set!.metadata, labels: { ...set!.metadata.labels, changed: "yes" } },
    });
    expect(events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.labels?.changed])).toEqual([
      ["MODIFIED", set!.metadata.name, "yes"],
    ]);
    subscription.stop();
  });

  it("a cluster written to stays in memory, watched or not", () => {
    const fleet = fleetOf(4, 2);
    const written = fleet.get("c0")!;
    const info = written.kinds.find((k) => k.kind === "MachineSet")!;
    const [set] = written.store.list(info, "openshift-machine-api");
    written.store.replace(info, "openshift-machine-api", set!.metadata.name!, {
      ...set!,
      metadata: { ...set!.metadata, labels: { a: "b" } },
    });
    for (const name of ["c1", "c2", "c3"]) void fleet.get(name)!.store;
    expect(written.materialized).toBe(true);
  });
});
