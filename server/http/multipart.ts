import { UserFacingError } from "../errors";
import { readBodyBytes } from "./body";

/**
 * Reads a multipart/form-data body of at most maxBytes, counted as it arrives (readBodyBytes), so
 * an upload past the limit is refused without being held in memory.
 */
export async function readMultipartForm(request: Request, maxBytes: number): Promise<FormData> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type))
    throw new UserFacingError(415, "Send the files as multipart/form-data (Content-Type: multipart/form-data; boundary=…)");
  const bytes = await readBodyBytes(request, maxBytes, "The upload");
  try {
    return await new Response(bytes, { headers: { "content-type": type } }).formData();
  } catch {
    throw new UserFacingError(400, "The request body is not valid multipart/form-data");
  }
}
