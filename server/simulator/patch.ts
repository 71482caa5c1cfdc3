import fastJsonPatch, { type Operation } from "fast-json-patch";
import { ApiError, badRequest } from "./apiError";
import type { KubeObject } from "./objectStore";

/** RFC 7386 JSON merge patch. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    target !== null && typeof target === "object" && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/**
 * A PATCH request's body applied to the current object, by its content type, with the API server's
 * answers for a wrong body or type. Strategic merge is served as a JSON merge patch: OpenShift's
 * custom resources accept only that.
 */
export function applyPatchRequest(contentType: string | undefined, current: KubeObject, patch: unknown): KubeObject {
  const type = (contentType ?? "").split(";")[0]!.trim();
  if (type === "application/merge-patch+json" || type === "application/strategic-merge-patch+json")
    return mergePatch(structuredClone(current), patch) as KubeObject;
  if (type === "application/json-patch+json") {
    if (!Array.isArray(patch)) throw badRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch");
    try {
      return fastJsonPatch.applyPatch(structuredClone(current), patch as Operation[], true, false).newDocument;
    } catch (error) {
      throw new ApiError(
        422,
        "Invalid",
        `the server rejected our request due to an error in our request: ${(error as Error).message.split("\n")[0]}`,
      );
    }
  }
  throw new ApiError(
    415,
    "UnsupportedMediaType",
    "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json",
  );
}
