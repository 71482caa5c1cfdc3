import dgram from "node:dgram";
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FAILURE_TTL_MS, parseHostsFile, resolveRouteHost, useNameServers } from "./routeResolver";

/**
 * A name server on a loopback UDP port (RFC 1035 §4.1): it answers A queries for the names in
 * `known` and NXDOMAIN for every other name, and counts the questions it was asked.
 */
let server: dgram.Socket;
const known: Record<string, string> = { "thanos-querier-openshift-monitoring.apps.east.example.com": "203.0.113.7" };
const asked: string[] = [];

function questionOf(packet: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (packet[at]! > 0) {
    labels.push(packet.subarray(at + 1, at + 1 + packet[at]!).toString("ascii"));
    at += packet[at]! + 1;
  }
  return { name: labels.join("."), type: packet.readUInt16BE(at + 1), end: at + 5 };
}

beforeAll(async () => {
  server = dgram.createSocket("udp4");
  server.on("message", (packet, peer) => {
    const q = questionOf(packet);
    asked.push(q.name);
    const address = q.type === 1 ? known[q.name] : undefined;
    const header = Buffer.alloc(12);
    packet.copy(header, 0, 0, 2); // the query's ID
    const nameKnown = q.name in known;
    header.writeUInt16BE(0x8180 | (nameKnown ? 0 : 3), 2); // a response, recursion available; NXDOMAIN for unknown names
    header.writeUInt16BE(1, 4); // one question
    header.writeUInt16BE(address ? 1 : 0, 6); // answers
    const question = packet.subarray(12, q.end);
    const answer = address
      ? Buffer.concat([Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4]), Buffer.from(address.split(".").map(Number))])
      : Buffer.alloc(0);
    server.send(Buffer.concat([header, question, answer]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => server.bind(0, "127.0.0.1", resolve));
});
afterAll(() => server.close());
beforeEach(() => {
  useNameServers([`127.0.0.1:${server.address().port}`]);
  asked.length = 0;
});

describe("resolving a Route's host without holding Node's threads", () => {
  it("answers a name the name server knows", async () => {
    await expect(resolveRouteHost("thanos-querier-openshift-monitoring.apps.east.example.com")).resolves.toEqual([
      { address: "203.0.113.7", family: 4 },
    ]);
  });

  it("says a name does not resolve, and does not ask again until FAILURE_TTL_MS has passed", async () => {
    const host = "thanos-querier-openshift-monitoring.apps.west.example.com";
    const at = Date.parse("2026-11-28T10:00:00Z");
    await expect(resolveRouteHost(host, at)).rejects.toMatchObject({
      code: "ENOTFOUND",
      message: `${host} does not resolve (DNS knows no address for it)`,
    });
    const questions = asked.length;
    expect(questions).toBeGreaterThanOrEqual(1);
    await expect(resolveRouteHost(host, at + 60_000)).rejects.toMatchObject({
      code: "ENOTFOUND",
      message: expect.stringContaining("(remembered since 10:00 UTC; asked again after 10:10 UTC)"),
    });
    expect(asked.length).toBe(questions);
    await expect(resolveRouteHost(host, at + FAILURE_TTL_MS + 1)).rejects.toMatchObject({ code: "ENOTFOUND" });
    expect(asked.length).toBeGreaterThan(questions);
  });

  it("a name server that never answers holds no thread: file reads go on while two hundred names wait", async () => {
    const silent = dgram.createSocket("udp4");
    await new Promise<void>((resolve) => silent.bind(0, "127.0.0.1", resolve));
    try {
      useNameServers([`127.0.0.1:${silent.address().port}`]);
      const pending = Promise.allSettled(
        Array.from({ length: 200 }, (_, i) => resolveRouteHost(`thanos-querier-openshift-monitoring.apps.c${i}.example.com`)),
      );
      const started = performance.now();
      await readFile(__filename);
      // getaddrinfo would hold Node's four threads for as long as the name server keeps silent.
      expect(performance.now() - started).toBeLessThan(250);
      const results = await pending;
      expect(results.every((r) => r.status === "rejected" && (r.reason as NodeJS.ErrnoException).code === "ETIMEOUT")).toBe(true);
      await expect(resolveRouteHost("thanos-querier-openshift-monitoring.apps.c0.example.com")).rejects.toThrow(
        /ETIMEOUT from DNS\) \(remembered since/,
      );
    } finally {
      silent.close();
    }
  });

  it("reads hosts(5): an address, its names, comments", () => {
    const hosts = parseHostsFile(
      "127.0.0.1 localhost\n# a comment\n203.0.113.9  Querier.Example.COM alias # trailing\n::1 ip6-localhost\nnot-an-address name\n",
    );
    expect(hosts.get("querier.example.com")).toEqual([{ address: "203.0.113.9", family: 4 }]);
    expect(hosts.get("alias")).toEqual([{ address: "203.0.113.9", family: 4 }]);
    expect(hosts.get("ip6-localhost")).toEqual([{ address: "::1", family: 6 }]);
    expect(hosts.has("name")).toBe(false);
  });
});
