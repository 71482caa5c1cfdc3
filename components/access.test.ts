import { describe, expect, it } from "vitest";
import { can, meOf } from "./access";
import { fleetHrefFor } from "./grants";

describe("what the console offers a person", () => {
  const person = (grants: { role: "viewer" | "technician" | "approver" | "admin"; scope: string }[], role = grants[0]?.role ?? "viewer") =>
    meOf({ id: "1", username: "p", role, grants });

  it("follows every role the grants give, wherever they give it", () => {
    const both = person([
      { role: "approver", scope: "clusterSet=a" },
      { role: "technician", scope: "clusterSet=b" },
    ]);
    expect(can(both, ["technician"])).toBe(true);
    expect(can(both, ["approver"])).toBe(true);
    expect(can(person([{ role: "viewer", scope: "" }]), ["technician"])).toBe(false);
    expect(can(person([], "viewer"), ["viewer"])).toBe(false);
    expect(can(person([{ role: "admin", scope: "" }]), ["approver"])).toBe(true);
  });

  it("goes by the role alone when a page gives no roles (as before grants)", () => {
    expect(can({ id: "1", username: "p", role: "technician" }, ["technician"])).toBe(true);
    expect(can({ id: "1", username: "p", role: "viewer" }, ["technician"])).toBe(false);
  });

  it("links a scope to the fleet view filtered by it", () => {
    expect(fleetHrefFor("clusterSet=edge-emea&label=region=emea")).toBe("/fleet?clusterSet=edge-emea&label=region%3Demea");
    expect(fleetHrefFor("")).toBe("/fleet");
  });
});
