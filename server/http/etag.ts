import { createHash } from "node:crypto";

/**
 * JSON with a validator: a poll that finds nothing changed costs a 304 and no body. The tag is a
 * digest of the body itself, so it changes exactly when what the caller would see changes; the
 * browser's HTTP cache revalidates on its own (`no-cache`), so pages need no code for it.
 */
export function jsonWithEtag(request: Request, data: unknown): Response {
  return etaggedResponse(request, etagged(data));
}

export type Etagged = { body: string; tag: string };

/** A JSON body with its tag, worked out once so that many responses can share it. */
export function etagged(data: unknown): Etagged {
  const body = JSON.stringify(data);
  return { body, tag: `W/"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
}

export function etaggedResponse(request: Request, { body, tag }: Etagged): Response {
  const headers = { etag: tag, "cache-control": "private, no-cache", vary: "Cookie" };
  const sent = request.headers.get("if-none-match");
  if (sent && sent.split(",").some((t) => t.trim() === tag)) return new Response(null, { status: 304, headers });
  return new Response(body, { headers: { ...headers, "content-type": "application/json" } });
}
