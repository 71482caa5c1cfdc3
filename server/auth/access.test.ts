import { describe, expect, it } from "vitest";
import { navigationFor } from "./navigation";
import { isForeignOrigin, isStateChanging } from "./origin";
import { hasRole } from "./roles";

describe("hasRole", () => {
  it("lets admins do everything and other roles only what is listed", () => {
    expect(hasRole("admin", ["approver"])).toBe(true);
    expect(hasRole("approver", ["approver"])).toBe(true);
    expect(hasRole("approver", ["technician"])).toBe(false);
    expect(hasRole("technician", ["approver"])).toBe(false);
    expect(hasRole("viewer", "any")).toBe(true);
    expect(hasRole("viewer", ["technician", "approver"])).toBe(false);
  });

  it("shows each role only the sections it may open", () => {
    expect(navigationFor("admin").map((n) => n.label)).toContain("Admin");
    expect(navigationFor("technician").map((n) => n.label)).not.toContain("Admin");
    expect(navigationFor("technician").map((n) => n.label)).not.toContain("Audit");
    expect(navigationFor("approver").map((n) => n.label)).toContain("Audit");
  });

  it("follows every role a person's grants give, and shows a person holding none the sections anyone may open", () => {
    expect(navigationFor(["viewer", "approver"]).map((n) => n.label)).toContain("Audit");
    expect(navigationFor(["technician", "viewer"]).map((n) => n.label)).not.toContain("Audit");
    expect(navigationFor([]).map((n) => n.label)).toEqual(["Fleet", "Alerts", "Preview", "Rollouts", "Bundles", "Acknowledgements"]);
  });
});

describe("isForeignOrigin", () => {
  const site = "http://127.0.0.1:3000";
  const h = (init: Record<string, string>) => new Headers(init);

  it("accepts the console's own origin and configured extra origins", () => {
    expect(isForeignOrigin(h({ origin: site }), site)).toBe(false);
    expect(isForeignOrigin(h({ origin: "https://fleet.example.com" }), site, ["https://fleet.example.com"])).toBe(false);
  });

  it("refuses another origin, the opaque 'null' origin, and cross-site fetch metadata", () => {
    expect(isForeignOrigin(h({ origin: "https://evil.example" }), site)).toBe(true);
    expect(isForeignOrigin(h({ origin: "http://127.0.0.1:3001" }), site)).toBe(true);
    expect(isForeignOrigin(h({ origin: "null" }), site)).toBe(true);
    expect(isForeignOrigin(h({ "sec-fetch-site": "cross-site" }), site)).toBe(true);
  });

  it("lets scripts without Origin through (they still need a session)", () => {
    expect(isForeignOrigin(h({}), site)).toBe(false);
    expect(isForeignOrigin(h({ "sec-fetch-site": "same-origin" }), site)).toBe(false);
  });

  it("only guards state-changing methods", () => {
    expect(["POST", "PUT", "PATCH", "DELETE"].every(isStateChanging)).toBe(true);
    expect(["GET", "HEAD", "OPTIONS"].some(isStateChanging)).toBe(false);
  });
});
