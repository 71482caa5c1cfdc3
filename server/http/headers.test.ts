import { describe, expect, it } from "vitest";
import { UPLOAD_LIMITS } from "../clusters/dumpUpload";
import { MAX_MANIFEST_BYTES } from "../bundles/bundles";
import { MAX_PREVIEW_BODY } from "../preview/clusterPreview";
import { GLOBAL_BODY_LIMIT, readBodyBytes } from "./body";
import { clientIp, isHttpsRequest, trustedHop } from "./request";
import { securityHeaders } from "./securityHeaders";

describe("request bodies", () => {
  it("stop being read at the limit, however the body arrives", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1024;
        controller.enqueue(new Uint8Array(1024));
        if (pulled >= 1024 * 1024) controller.close();
      },
    });
    const request = new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);
    await expect(readBodyBytes(request, 4096)).rejects.toMatchObject({
      status: 413,
      message: "The request body is larger than 4 KiB, the limit for this request",
    });
    expect(pulled).toBeLessThan(16 * 1024);
    const declared = new Request("http://x/", { method: "POST", body: "x".repeat(10), headers: { "content-length": "999999" } });
    await expect(readBodyBytes(declared, 4096)).rejects.toMatchObject({ status: 413 });
    expect(await readBodyBytes(new Request("http://x/", { method: "POST", body: "hello" }), 5)).toEqual(new TextEncoder().encode("hello"));
  });

  it("have a global cap that covers every route's own limit", () => {
    for (const limit of [UPLOAD_LIMITS.maxUploadBytes + 64 * 1024, MAX_MANIFEST_BYTES + 64 * 1024, MAX_PREVIEW_BODY])
      expect(limit).toBeLessThanOrEqual(GLOBAL_BODY_LIMIT);
  });
});

describe("addresses and schemes behind a proxy", () => {
  const headers = (h: Record<string, string>) => new Headers({ "x-fleetskew-client-ip": "10.0.0.1", ...h });

  it("take the hop the trusted proxy appended, never what the client wrote", () => {
    expect(trustedHop("1.1.1.1, 203.0.113.7", 1)).toBe("203.0.113.7");
    expect(trustedHop("1.1.1.1, 203.0.113.7, 10.0.0.2", 2)).toBe("203.0.113.7");
    expect(trustedHop("203.0.113.7", 3)).toBe("203.0.113.7");
    expect(clientIp(headers({ "x-forwarded-for": "1.1.1.1, 203.0.113.7" }), { trustedProxyHops: 1 })).toBe("203.0.113.7");
    // Without a trusted proxy the header is the client's own word, and ignored.
    expect(clientIp(headers({ "x-forwarded-for": "1.1.1.1" }), { trustedProxyHops: 0 })).toBe("10.0.0.1");
  });

  it("count as https when FLEETSKEW_PUBLIC_URL says so, or a trusted proxy does", () => {
    expect(isHttpsRequest(headers({}), { trustedProxyHops: 0, publicUrl: "https://fleet.example" })).toBe(true);
    expect(isHttpsRequest(headers({ "x-forwarded-proto": "https" }), { trustedProxyHops: 0, publicUrl: undefined })).toBe(false);
    expect(isHttpsRequest(headers({ "x-forwarded-proto": "https" }), { trustedProxyHops: 1, publicUrl: undefined })).toBe(true);
  });
});

describe("security headers", () => {
  it("allow only scripts with the nonce, and HSTS only over https", () => {
    const plain = securityHeaders({ https: false, dev: false, nonce: "abc" });
    expect(plain["content-security-policy"]).toContain("script-src 'self' 'nonce-abc' 'strict-dynamic';");
    expect(plain["content-security-policy"]).not.toContain("unsafe-eval");
    expect(plain["strict-transport-security"]).toBeUndefined();
    const https = securityHeaders({ https: true, dev: false, nonce: "abc" });
    expect(https["strict-transport-security"]).toBe("max-age=31536000");
    expect(https["content-security-policy"]).toMatch(/upgrade-insecure-requests$/);
  });
});
