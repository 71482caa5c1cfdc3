import { describe, expect, it } from "vitest";
import { FleetListQuerySchema } from "@/server/fleet/contract";
import { fleetLinkToNames, queryOfTyped } from "./selectionText";

const parsed = (q: string) => FleetListQuerySchema.parse(Object.fromEntries(new URLSearchParams(q)));

describe("the picker's typed text", () => {
  it("reads the fleet view's filters as filters, not as a search", () => {
    expect(queryOfTyped("", "platform=AWS")).toBe("platform=AWS");
    expect(queryOfTyped("", "skew=at-risk readiness=warn")).toBe("skew=at-risk&readiness=warn");
    expect(queryOfTyped("", "clusterSet=edge-emea")).toBe("clusterSet=edge-emea");
    expect(parsed(queryOfTyped("", "Platform=AWS")).platform).toBe("AWS");
  });

  it("takes labels written with or without label=, and adds them up", () => {
    expect(parsed(queryOfTyped("", "label=region=emea tier=gold")).label).toEqual([
      { key: "region", value: "emea" },
      { key: "tier", value: "gold" },
    ]);
    expect(parsed(queryOfTyped("label=env=prod", "region=emea")).label).toHaveLength(2);
  });

  it("keeps the rest as the fleet search, and the base's filters unless typed again", () => {
    const q = queryOfTyped("platform=GCP&q=old&sort=name&after=xyz", "prod east platform=AWS");
    const p = new URLSearchParams(q);
    expect(p.get("platform")).toBe("AWS");
    expect(p.get("q")).toBe("prod east");
    expect(p.has("sort") || p.has("after")).toBe(false);
    expect(queryOfTyped("skew=blocked", "")).toBe("skew=blocked");
  });

  it("leaves a bad filter value for the API to refuse in words, rather than searching for it", () => {
    expect(FleetListQuerySchema.safeParse(Object.fromEntries(new URLSearchParams(queryOfTyped("", "skew=purple")))).success).toBe(false);
  });

  it("links to named clusters as a fleet view", () => {
    expect(fleetLinkToNames(["a", "b"])).toBe("/fleet?name=a%2Cb");
  });
});
