import { describe, expect, it } from "vitest";
import { roleForGroups } from "../auth/groupRoles";
import { parseRoleMapping } from "./sso";

const parse = (text: string) => parseRoleMapping(text, "FLEETSKEW_OIDC_ROLES");

describe("group mappings with scopes", () => {
  it("reads group=role over the whole fleet and group=role@scope over a scope, stored as formatScope writes it", () => {
    expect(parse("fleet-admins=admin, emea-field=technician@clusterSet=edge-emea, aws=viewer@ platform=AWS & hub=hub-2 ")).toEqual([
      { group: "fleet-admins", role: "admin", scope: "" },
      { group: "emea-field", role: "technician", scope: "clusterSet=edge-emea" },
      { group: "aws", role: "viewer", scope: "hub=hub-2&platform=AWS" },
    ]);
  });

  it("finds the role at the first = followed by a role: groups may hold = and @, scopes = and &", () => {
    expect(parse("cn=ops=approver@label=region=emea&clusterSet=edge")).toEqual([
      { group: "cn=ops", role: "approver", scope: "clusterSet=edge&label=region=emea" },
    ]);
    expect(parse("team@example.com=viewer")).toEqual([{ group: "team@example.com", role: "viewer", scope: "" }]);
    expect(parse("a=viewer=technician")).toEqual([{ group: "a=viewer", role: "technician", scope: "" }]);
  });

  it("names the group and what is wrong: an unknown role, a bad scope, admin over a scope", () => {
    expect(() => parse("g=owner@clusterSet=x")).toThrow(/^FLEETSKEW_OIDC_ROLES gives group g the role "owner"; roles are viewer/);
    expect(() => parse("g=technician@skew=blocked")).toThrow(
      /^FLEETSKEW_OIDC_ROLES gives group g the scope "skew=blocked", which is not one: "skew=blocked" is not a scope term/,
    );
    expect(() => parse("g=admin@clusterSet=x")).toThrow(/gives group g admin over a scope; admin covers the whole fleet/);
    expect(() => parse("=viewer")).toThrow(/is not group=role or group=role@scope|names no group/);
    // A comma ends the entry: name=a,b cannot be a scope here, and "b" alone is not an entry.
    expect(() => parse("g=viewer@name=a,b")).toThrow(/"b", which is not group=role/);
  });
});

describe("what a person's groups give", () => {
  const mapping = parse(
    "emea-field=technician@clusterSet=edge-emea,apac-field=technician@clusterSet=edge-apac,everyone=viewer,emea-leads=approver@clusterSet=edge-emea,also-emea=technician@clusterSet=edge-emea,fleet-admins=admin",
  );

  it("is the union of every matching group's grants, duplicates collapsed, shown as the highest role", () => {
    expect(roleForGroups(["emea-field", "apac-field", "everyone", "also-emea", "unmapped"], mapping)).toEqual({
      role: "technician",
      grants: [
        { role: "technician", scope: "clusterSet=edge-apac" },
        { role: "technician", scope: "clusterSet=edge-emea" },
        { role: "viewer", scope: "" },
      ],
      group: "emea-field",
      groups: ["emea-field", "apac-field", "everyone", "also-emea"],
    });
    expect(roleForGroups(["everyone", "emea-leads"], mapping)).toMatchObject({ role: "approver", group: "emea-leads" });
  });

  it("makes an admin of a member of an admin group, with no grants; none for nobody mapped", () => {
    expect(roleForGroups(["emea-field", "fleet-admins"], mapping)).toMatchObject({ role: "admin", grants: [], group: "fleet-admins" });
    expect(roleForGroups(["strangers"], mapping)).toBeNull();
  });
});
