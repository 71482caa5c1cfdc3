import { beforeEach, describe, expect, it } from "vitest";
import { caContextFor, MAX_KEPT_CONTEXTS, secureContextFor, secureContexts } from "./clientConfig";

const credentials = (n: number) => ({
  server: "https://api.example:6443",
  insecureSkipTlsVerify: false,
  token: "t",
  certificateAuthority: `# ca ${n}\n`,
});

describe("TLS contexts", () => {
  beforeEach(() => secureContexts.clear());

  it("are shared by clusters with the same CA and credentials, and not across different ones", () => {
    expect(secureContextFor(credentials(1))).toBe(secureContextFor(credentials(1)));
    expect(secureContextFor(credentials(1))).not.toBe(secureContextFor(credentials(2)));
    expect(caContextFor("# ingress\n")).toBe(caContextFor("# ingress\n"));
  });

  it("are kept for the most recently used CAs only, so a large fleet's do not all stay in memory", () => {
    const first = secureContextFor(credentials(0));
    for (let n = 1; n < MAX_KEPT_CONTEXTS; n++) secureContextFor(credentials(n));
    // Used again, the first and second are the most recent; of them the second was used last.
    expect(secureContextFor(credentials(0))).toBe(first);
    const second = secureContextFor(credentials(1));
    for (let n = 0; n < MAX_KEPT_CONTEXTS - 1; n++) caContextFor(`# ingress ${n}\n`);
    expect(secureContexts.size).toBe(MAX_KEPT_CONTEXTS);
    expect(secureContextFor(credentials(1))).toBe(second);
    expect(secureContextFor(credentials(0))).not.toBe(first);
    expect(secureContexts.size).toBe(MAX_KEPT_CONTEXTS);
  });
});
