import { UserFacingError } from "../errors";

const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;

/**
 * Reads a multipart/form-data body of at most maxBytes. The body is counted as it arrives, since a
 * client may send no Content-Length (or a wrong one), and reading stops at the limit.
 */
export async function readMultipartForm(request: Request, maxBytes: number): Promise<FormData> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type))
    throw new UserFacingError(415, "Send the files as multipart/form-data (Content-Type: multipart/form-data; boundary=…)");
  const tooLarge = () => new UserFacingError(413, `The upload is larger than ${mib(maxBytes)}`);
  if (Number(request.headers.get("content-length") ?? "0") > maxBytes) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body?.getReader();
  for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader!.read()) {
    total += chunk.value.length;
    if (total > maxBytes) {
      await reader!.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(chunk.value);
  }
  try {
    return await new Response(Buffer.concat(chunks), { headers: { "content-type": type } }).formData();
  } catch {
    throw new UserFacingError(400, "The request body is not valid multipart/form-data");
  }
}
