import { describe, expect, it } from "vitest";
import { DEFAULT_VIEW, paramsOfView } from "@/components/fleet/fleetUrl";
import { encodeCursor, FleetListQuerySchema } from "./fleetQuery";

describe("the fleet query string", () => {
  it("is a query string the API accepts as it is", () => {
    const view = {
      ...DEFAULT_VIEW,
      version: "4.19",
      readiness: "fail",
      hub: "east",
      clusterSet: "prod",
      registryLess: true,
      sort: "lastSeen" as const,
    };
    const parsed = FleetListQuerySchema.parse(Object.fromEntries(paramsOfView(view)));
    expect(parsed).toMatchObject({
      version: "4.19",
      readiness: "fail",
      hub: "east",
      clusterSet: "prod",
      registryLess: true,
      sort: "lastSeen",
      dir: "asc",
    });
  });

  it("refuses what it cannot use, with the reason", () => {
    const issue = (q: Record<string, string>) => FleetListQuerySchema.safeParse(q).error?.issues[0]?.message;
    expect(issue({ version: "4.19.10" })).toBe("must be a minor version like 4.19, or unknown");
    expect(issue({ label: "env=prod,not a label" })).toBe('"not a label" is not a label key or key=value');
    expect(issue({ label: Array.from({ length: 11 }, (_, i) => `k${i}`).join(",") })).toBe("at most 10 label selectors");
    expect(issue({ after: "garbage" })).toBe("is not a cursor this console gave out; start from the first page");
    expect(issue({ limit: "5000" })).toMatch(/1000/);
    expect(FleetListQuerySchema.parse({ sort: "version", after: encodeCursor({ value: "{4,19}", name: "a" }) }).after).toEqual({
      value: "{4,19}",
      name: "a",
    });
    // A cursor is read back as its sort's type: one of another sort is refused, not left to fail in the database.
    expect(issue({ after: encodeCursor({ value: "{4,19}", name: "a" }) })).toBe(
      "is not a cursor this console gave out for this sort; start from the first page",
    );
    expect(
      FleetListQuerySchema.parse({ sort: "lastSeen", after: encodeCursor({ value: "2026-01-31 23:59:59.5", name: "a" }) }).after,
    ).toBeTruthy();
    expect(FleetListQuerySchema.parse({ label: "env=prod, tier" }).label).toEqual([{ key: "env", value: "prod" }, { key: "tier" }]);
  });
});
