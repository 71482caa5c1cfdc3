import { describe, expect, it } from "vitest";
import { decodeUpdateGateParts, updateGatePartsDecoder } from "./updateGateParts";

describe("the update gates' parts as the plan's query returns them", () => {
  it("keeps what the gates read: ClusterVersion's conditions, the MCO's Upgradeable, admin gates and acks, ClusterVersion's problems", () => {
    const parts = decodeUpdateGateParts(
      JSON.stringify({
        version: {
          current: "4.19.10",
          desired: "4.19.10",
          updating: false,
          channel: "stable-4.19",
          conditions: [{ type: "Upgradeable", status: "False", reason: "AdminAckRequired", message: "m", since: "2026-11-27T00:00:00Z" }],
        },
        machineConfigOperator: [
          { type: "Available", status: "True" },
          { type: "Upgradeable", status: "False", reason: "DegradedPool", message: null, since: null },
        ],
        adminGates: { "ack-4.19-x": "gate", broken: 7 },
        adminAcks: {},
        problems: [
          { part: "ClusterVersion", kind: "error", message: "timeout" },
          { part: "Nodes", kind: "error", message: "forbidden" },
        ],
      }),
    );
    expect(parts).toEqual({
      version: {
        current: "4.19.10",
        desired: "4.19.10",
        updating: false,
        conditions: [{ type: "Upgradeable", status: "False", reason: "AdminAckRequired", message: "m", since: "2026-11-27T00:00:00Z" }],
      },
      machineConfigOperator: [{ type: "Upgradeable", status: "False", reason: "DegradedPool", message: null, since: null }],
      adminGates: { "ack-4.19-x": "gate" },
      adminAcks: {},
      problems: [{ part: "ClusterVersion", kind: "error", message: "timeout" }],
    });
  });

  it("reads anything missing or malformed as not read, never as passing data", () => {
    const nothing = { version: null, machineConfigOperator: null, adminGates: null, adminAcks: null, problems: [] };
    expect(decodeUpdateGateParts(null)).toEqual(nothing);
    expect(decodeUpdateGateParts("[1,2]")).toEqual(nothing);
    expect(
      decodeUpdateGateParts(
        JSON.stringify({ version: "4.19.10", machineConfigOperator: {}, adminGates: [], adminAcks: "true", problems: "x" }),
      ),
    ).toEqual(nothing);
    expect(decodeUpdateGateParts(JSON.stringify({ version: { current: 4.19, conditions: [{ type: "Upgradeable" }, 5] } })).version).toEqual(
      {
        current: null,
        desired: null,
        updating: false,
        conditions: [],
      },
    );
  });

  it("decodes each distinct text once, and shares the answer", () => {
    const decode = updateGatePartsDecoder();
    const parts = (current: string) =>
      `{"version": {"current": "${current}", "conditions": [{"type": "Upgradeable", "reason": "AdminAckRequired", "status": "False", "message": "m"}]}}`;
    const a = decode(parts("4.19.10"));
    expect(decode(parts("4.19.10"))).toBe(a);
    expect(a.version?.conditions).toEqual([
      { type: "Upgradeable", status: "False", reason: "AdminAckRequired", message: "m", since: null },
    ]);
    expect(decode(parts("4.19.11"))).not.toBe(a);
    expect(decode(parts("4.19.11")).version?.current).toBe("4.19.11");
  });
});
