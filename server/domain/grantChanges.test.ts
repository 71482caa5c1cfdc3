import { describe, expect, it } from "vitest";
import { canonicalGrants, roleOfGrants, sameGrants } from "./grantChanges";

describe("giving grants", () => {
  it("writes scopes canonically, collapses duplicates and sorts", () => {
    expect(
      canonicalGrants([
        { role: "viewer", scope: "platform=AWS&clusterSet=x" },
        { role: "viewer", scope: " clusterSet=x & platform=AWS" },
        { role: "approver", scope: "" },
      ]),
    ).toEqual({
      ok: true,
      grants: [
        { role: "approver", scope: "" },
        { role: "viewer", scope: "clusterSet=x&platform=AWS" },
      ],
    });
  });

  it("names the first bad entry by its place", () => {
    expect(
      canonicalGrants([
        { role: "viewer", scope: "" },
        { role: "admin", scope: "" },
      ]),
    ).toMatchObject({ ok: false, error: /^grants\.1\.role: "admin" cannot be granted/ });
    expect(canonicalGrants([{ role: "viewer", scope: "hub=" }])).toEqual({ ok: false, error: "grants.0.scope: hub= needs a value" });
    expect(canonicalGrants(Array.from({ length: 51 }, () => ({ role: "viewer", scope: "" })))).toMatchObject({ ok: false });
  });

  it("shows the highest role held, viewer with none", () => {
    expect(
      roleOfGrants([
        { role: "viewer", scope: "" },
        { role: "approver", scope: "hub=h" },
        { role: "technician", scope: "" },
      ]),
    ).toBe("approver");
    expect(roleOfGrants([])).toBe("viewer");
    expect(
      sameGrants(
        [
          { role: "viewer", scope: "" },
          { role: "approver", scope: "a" },
        ],
        [
          { role: "approver", scope: "a" },
          { role: "viewer", scope: "" },
        ],
      ),
    ).toBe(true);
  });
});
