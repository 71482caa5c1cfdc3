import { describe, expect, it } from "vitest";
import { formatScope, intersectScopes, isWholeFleet, parseScope, scopeMatches, type Scope } from "./scope";

const parsed = (text: string): Scope => {
  const read = parseScope(text);
  if (!read.ok) throw new Error(read.error);
  return read.scope;
};

const cluster = (name: string, platform: string | null, labels: Record<string, string>) => ({ name, platform, labels });

describe("parseScope", () => {
  it("reads the fleet view's terms and writes them back in one canonical order", () => {
    const read = parseScope(" platform=AWS & clusterSet=edge-emea&label=region=emea,tier ");
    expect(read).toMatchObject({ ok: true, text: "clusterSet=edge-emea&label=region=emea&label=tier&platform=AWS" });
    expect(parseScope("label=tier&platform=AWS&clusterSet=edge-emea&label=region=emea")).toMatchObject({ text: read.ok ? read.text : "" });
  });

  it("reads the empty scope as the whole fleet", () => {
    expect(isWholeFleet(parsed(""))).toBe(true);
    expect(isWholeFleet(parsed("hub=hub-2"))).toBe(false);
  });

  it("refuses a status as a scope, naming the terms that are allowed", () => {
    const read = parseScope("skew=blocked");
    expect(read.ok).toBe(false);
    expect(!read.ok && read.error).toMatch(
      /"skew=blocked" is not a scope term; a scope is made of clusterSet=…, hub=…, label=…, platform=…, name=…/,
    );
  });

  it("refuses malformed values with the value in the message", () => {
    expect(parseScope("clusterSet=")).toEqual({ ok: false, error: "clusterSet= needs a value" });
    expect(parseScope("label=no spaces")).toMatchObject({ ok: false, error: expect.stringContaining('"no spaces" is not a label key') });
    expect(parseScope("name=UPPER")).toMatchObject({ ok: false, error: expect.stringContaining('"UPPER" is not a cluster name') });
    expect(parseScope("x".repeat(2001))).toMatchObject({ ok: false });
  });

  it("marks two different platforms as a scope no cluster can meet", () => {
    expect(parsed("platform=AWS&platform=GCP").empty).toBe(true);
  });
});

describe("scopeMatches", () => {
  const emea = cluster("site-1", "AWS", { "cluster.open-cluster-management.io/clusterset": "edge-emea", region: "emea" });
  const apac = cluster("site-2", "GCP", { "cluster.open-cluster-management.io/clusterset": "edge-apac" });

  it("holds every term of the scope", () => {
    expect(scopeMatches(parsed("clusterSet=edge-emea"), emea)).toBe(true);
    expect(scopeMatches(parsed("clusterSet=edge-emea"), apac)).toBe(false);
    expect(scopeMatches(parsed("clusterSet=edge-emea&platform=GCP"), emea)).toBe(false);
    expect(scopeMatches(parsed("label=region"), emea)).toBe(true);
    expect(scopeMatches(parsed("name=site-2,site-3"), apac)).toBe(true);
    expect(scopeMatches(parsed(""), apac)).toBe(true);
  });

  it("reads a cluster without a platform as platform=unknown, as the fleet view filters it", () => {
    expect(scopeMatches(parsed("platform=unknown"), cluster("x", null, {}))).toBe(true);
  });
});

describe("intersectScopes", () => {
  it("is both scopes at once", () => {
    const both = intersectScopes(parsed("clusterSet=edge-emea"), parsed("platform=AWS"));
    expect(formatScope(both)).toBe("clusterSet=edge-emea&platform=AWS");
    expect(intersectScopes(parsed("name=a,b"), parsed("name=b,c")).names).toEqual(["b"]);
  });

  it("is empty when no cluster can be in both", () => {
    expect(intersectScopes(parsed("platform=AWS"), parsed("platform=GCP")).empty).toBe(true);
    expect(intersectScopes(parsed("name=a"), parsed("name=b")).empty).toBe(true);
    expect(intersectScopes(parsed("clusterSet=edge-emea"), parsed("clusterSet=edge-apac")).empty).toBe(true);
    expect(intersectScopes(parsed("clusterSet=edge-emea"), parsed("clusterSet=edge-emea&label=tier")).empty).toBeUndefined();
  });

  it("leaves the other scope as it is when one is the whole fleet", () => {
    expect(formatScope(intersectScopes(parsed(""), parsed("hub=hub-2")))).toBe("hub=hub-2");
  });
});
