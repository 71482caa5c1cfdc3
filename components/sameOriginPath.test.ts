import { describe, expect, it } from "vitest";
import { afterSignIn, sameOriginPath } from "./sameOriginPath";

const ORIGIN = "https://fleetskew.example.com";

describe("where to go after signing in", () => {
  it("follows a path of the console, with its query and fragment", () => {
    expect(sameOriginPath("/clusters/prod-east?target=4.22#readiness", ORIGIN)).toBe("/clusters/prod-east?target=4.22#readiness");
    expect(sameOriginPath("/preview", ORIGIN)).toBe("/preview");
    // A percent-encoded backslash stays a character of the path: the browser does not read it as a separator.
    expect(sameOriginPath("/%5Cevil.example/x", ORIGIN)).toBe("/%5Cevil.example/x");
  });

  it.each([
    ["a backslash (another host to a browser)", "/\\evil.example/x"],
    ["two slashes (protocol-relative)", "//evil.example/x"],
    ["a tab between the slashes (dropped by the URL parser)", "/\t/evil.example"],
    ["a newline between the slashes", "/\n/evil.example"],
    ["a dot segment that leaves //", "/.//evil.example/x"],
    ["a backslash after a dot segment", "/./\\evil.example"],
    ["an absolute URL", "https://evil.example/"],
    ["a scheme", "javascript:alert(1)"],
    ["a relative path", "fleet"],
    ["nothing", ""],
  ])("refuses %s", (_what, next) => {
    expect(sameOriginPath(next, ORIGIN)).toBeNull();
    expect(afterSignIn(next, ORIGIN)).toBe("/fleet");
  });

  it("judges against the origin given, as the browser resolves it", () => {
    expect(sameOriginPath("/fleet", "not an origin")).toBeNull();
    expect(afterSignIn(undefined, ORIGIN)).toBe("/fleet");
  });
});
