import { describe, expect, it } from "vitest";
import { DEFAULT_VIEW, isFiltered, paramsOfView, viewFromParams } from "./fleetUrl";

describe("the fleet view's URL", () => {
  it("writes only what differs from the defaults, and reads back the same view", () => {
    expect(paramsOfView(DEFAULT_VIEW).toString()).toBe("");
    const view = {
      ...DEFAULT_VIEW,
      q: " prod ",
      skew: "blocked",
      label: "env=prod",
      stale: true,
      sort: "version" as const,
      dir: "desc" as const,
    };
    const params = paramsOfView(view);
    expect(params.toString()).toBe("q=prod&skew=blocked&label=env%3Dprod&stale=1&sort=version&dir=desc");
    expect(viewFromParams(params)).toEqual({ ...view, q: "prod" });
    expect(isFiltered(view)).toBe(true);
    expect(isFiltered({ ...DEFAULT_VIEW, sort: "name" })).toBe(false);
  });

  it("ignores what it does not know in a hand-edited link", () => {
    expect(viewFromParams(new URLSearchParams("sort=nonsense&dir=sideways&stale=yes&other=1"))).toEqual(DEFAULT_VIEW);
  });
});
