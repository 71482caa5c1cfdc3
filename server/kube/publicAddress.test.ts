import { describe, expect, it } from "vitest";
import { refusedAddressKind } from "./publicAddress";

describe("addresses a cluster's Route may not send Fleetskew's token to", () => {
  it("refuses loopback, link-local and unspecified addresses, IPv4-mapped ones too", () => {
    for (const a of ["127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1"]) expect(refusedAddressKind(a)).toBe("loopback");
    for (const a of ["169.254.169.254", "fe80::1", "::ffff:169.254.169.254"]) expect(refusedAddressKind(a)).toBe("link-local");
    for (const a of ["0.0.0.0", "::", "0.1.2.3"]) expect(refusedAddressKind(a)).toBe("unspecified");
  });

  it("lets an ingress's ordinary addresses through, private networks included", () => {
    for (const a of ["10.0.77.201", "192.168.1.10", "172.16.0.5", "52.94.236.248", "2600:1f18::1", "fd00::1"])
      expect(refusedAddressKind(a)).toBeNull();
  });
});
