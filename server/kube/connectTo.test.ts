import { describe, expect, it } from "vitest";
import { connectTarget, ConnectToError, hostPort, parseConnectTo } from "./connectTo";

describe("FLEETSKEW_CONNECT_TO, as curl's --connect-to", () => {
  it("sends a Route's host to another address and port, keeping what does not match where DNS points", () => {
    const entries = parseConnectTo("*.apps.edge-7.example.com:443:10.0.4.20:8443, api.other.example.com::10.0.9.9:");
    expect(connectTarget(entries, "thanos-querier-openshift-monitoring.apps.edge-7.example.com", 443)).toEqual({
      host: "10.0.4.20",
      port: 8443,
    });
    // A wildcard matches below the domain, not the domain itself, and only on the port it names.
    expect(connectTarget(entries, "apps.edge-7.example.com", 443)).toEqual({ host: "apps.edge-7.example.com", port: 443 });
    expect(connectTarget(entries, "x.apps.edge-7.example.com", 80)).toEqual({ host: "x.apps.edge-7.example.com", port: 80 });
    // An empty port matches any; an empty target port keeps the original one.
    expect(connectTarget(entries, "API.other.example.com", 6443)).toEqual({ host: "10.0.9.9", port: 6443 });
    expect(connectTarget([], "a.example.com", 443)).toEqual({ host: "a.example.com", port: 443 });
  });

  it("takes the first entry that matches, and IPv6 targets in brackets", () => {
    const entries = parseConnectTo("*.example.com::[::1]:9000 *.example.com::127.0.0.1:9001");
    expect(connectTarget(entries, "a.example.com", 443)).toEqual({ host: "::1", port: 9000 });
    expect(hostPort("::1", 9000)).toBe("[::1]:9000");
    expect(hostPort("10.0.0.1", 443)).toBe("10.0.0.1:443");
  });

  it("refuses what is not HOST1:PORT1:HOST2:PORT2, naming the entry", () => {
    expect(parseConnectTo("")).toEqual([]);
    expect(() => parseConnectTo("example.com:443")).toThrow(ConnectToError);
    expect(() => parseConnectTo("a.example.com:443:b:70000")).toThrow(/70000 is not a port/);
    expect(() => parseConnectTo("a*.example.com:443:b:1")).toThrow(/wildcard is only allowed as "\*\.domain"/);
    expect(() => parseConnectTo("a.example.com:443:*.b:1")).toThrow(/cannot be a wildcard/);
    expect(() => parseConnectTo(Array.from({ length: 101 }, (_, i) => `h${i}::x:1`).join(","))).toThrow(/at most 100/);
  });
});
