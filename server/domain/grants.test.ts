import { describe, expect, it } from "vitest";
import { holdGrants, holdsRole, narrowForToken, reachKey, reachOf, type Grant } from "./grants";
import { formatScope } from "./scope";

const held = (...grants: Grant[]) => holdGrants(grants);
const token = (role: Grant["role"] | null, scope = "") => ({ id: "t", name: "ci", role, scope });
const scopesOf = (reach: ReturnType<typeof reachOf>) => (reach.kind === "fleet" ? "fleet" : reach.anyOf.map(formatScope));

describe("reachOf", () => {
  const grants = held(
    { role: "technician", scope: "clusterSet=edge-emea" },
    { role: "viewer", scope: "" },
    { role: "approver", scope: "hub=hub-2" },
  );

  it("is the union of the scopes of the grants giving one of the roles", () => {
    expect(scopesOf(reachOf(grants, ["technician"]))).toEqual(["clusterSet=edge-emea"]);
    expect(scopesOf(reachOf(grants, ["approver"]))).toEqual(["hub=hub-2"]);
    expect(scopesOf(reachOf(grants, ["technician", "approver"]))).toEqual(["clusterSet=edge-emea", "hub=hub-2"]);
  });

  it("is the whole fleet for reading when one grant is fleet-wide", () => {
    expect(reachOf(grants, "any")).toEqual({ kind: "fleet" });
  });

  it("is nothing for a role no grant gives", () => {
    expect(scopesOf(reachOf(held({ role: "viewer", scope: "" }), ["technician"]))).toEqual([]);
    expect(holdsRole(held({ role: "viewer", scope: "" }), ["technician"])).toBe(false);
  });

  it("gives an admin every role over the whole fleet", () => {
    const admin = held({ role: "admin", scope: "" });
    expect(reachOf(admin, ["approver"])).toEqual({ kind: "fleet" });
    expect(holdsRole(admin, ["technician"])).toBe(true);
  });

  it("reaches nothing through a stored scope that no longer parses, rather than everything", () => {
    expect(scopesOf(reachOf(held({ role: "technician", scope: "skew=blocked" }), ["technician"]))).toEqual([]);
  });

  it("keys the same clusters the same way whatever the order of the grants", () => {
    const a = reachOf(held({ role: "viewer", scope: "hub=a" }, { role: "viewer", scope: "hub=b" }), "any");
    const b = reachOf(held({ role: "viewer", scope: "hub=b" }, { role: "viewer", scope: "hub=a" }), "any");
    expect(reachKey(a)).toBe(reachKey(b));
    expect(reachKey(a)).not.toBe(reachKey({ kind: "fleet" }));
  });
});

describe("narrowForToken", () => {
  it("never lets a token approve: an approver grant only reads through it", () => {
    const narrowed = narrowForToken(held({ role: "approver", scope: "" }), token(null));
    expect(narrowed.map((g) => g.role)).toEqual(["viewer"]);
    expect(holdsRole(narrowed, ["approver"])).toBe(false);
  });

  it("keeps a technician's role under a technician ceiling and reads only under a viewer ceiling", () => {
    expect(narrowForToken(held({ role: "technician", scope: "" }), token("technician"))[0]!.role).toBe("technician");
    expect(narrowForToken(held({ role: "technician", scope: "" }), token("viewer"))[0]!.role).toBe("viewer");
  });

  it("is never wider than the owner: a token's scope intersects each grant", () => {
    const narrowed = narrowForToken(held({ role: "technician", scope: "clusterSet=edge-emea" }), token("technician", "platform=AWS"));
    expect(narrowed.map((g) => g.scope)).toEqual(["clusterSet=edge-emea&platform=AWS"]);
    const none = narrowForToken(held({ role: "technician", scope: "platform=GCP" }), token(null, "platform=AWS"));
    expect(scopesOf(reachOf(none, "any"))).toEqual([]);
  });

  it("keeps admin fleet-wide: an admin's token narrowed to a scope is a technician's there", () => {
    expect(narrowForToken(held({ role: "admin", scope: "" }), token(null))[0]!.role).toBe("admin");
    expect(narrowForToken(held({ role: "admin", scope: "" }), token(null, "hub=hub-2"))[0]).toMatchObject({
      role: "technician",
      scope: "hub=hub-2",
    });
    expect(narrowForToken(held({ role: "admin", scope: "" }), token("viewer"))[0]!.role).toBe("viewer");
  });
});
