import { UserFacingError } from "../errors";

/** Sizes as limits are stated in answers: "4 KiB", "32 MiB". */
export function sizeText(bytes: number): string {
  const MiB = 1024 * 1024;
  if (bytes >= MiB) return `${Math.round((bytes / MiB) * 10) / 10} MiB`;
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KiB` : `${bytes} bytes`;
}

export const bodyTooLarge = (maxBytes: number, what = "The request body") =>
  new UserFacingError(413, `${what} is larger than ${sizeText(maxBytes)}, the limit for this request`);

/**
 * Reads a request body of at most maxBytes. The bytes are counted as they arrive, since a client
 * may send no Content-Length (chunked) or a wrong one, and reading stops at the limit: nothing past
 * it is buffered. A declared length over the limit is refused before reading anything.
 */
export async function readBodyBytes(request: Request, maxBytes: number, what?: string): Promise<Uint8Array<ArrayBuffer>> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) throw bodyTooLarge(maxBytes, what);
  const reader = request.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw bodyTooLarge(maxBytes, what);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * The start script's cap on any request body, whatever the route (Next's own endpoints included):
 * the largest limit a route sets (the offline import's 32 MiB upload and its form fields) and no
 * more, counted as the body streams. body.test.ts checks that it covers every route's limit.
 */
export const GLOBAL_BODY_LIMIT = 32 * 1024 * 1024 + 64 * 1024;
