import { listBundlesWithManifests, MAX_MANIFEST_BYTES, uploadBundle } from "@/server/bundles/bundles";
import { bundleEndpoints } from "@/server/bundles/contract";
import { UserFacingError } from "@/server/errors";
import { apiRoute } from "@/server/http/api";
import { readMultipartForm } from "@/server/http/multipart";

export const dynamic = "force-dynamic";

export const GET = apiRoute(bundleEndpoints.list, async () => ({ bundles: await listBundlesWithManifests() }));

/** The handler reads the multipart body itself, with the manifest's own limit. */
export const POST = apiRoute(bundleEndpoints.upload, async ({ request, actor }) => {
  const form = await readMultipartForm(request, MAX_MANIFEST_BYTES + 64 * 1024);
  const file = form.get("manifest");
  if (!(file instanceof File)) throw new UserFacingError(400, "Attach the manifest file as the form field `manifest`");
  return { bundle: await uploadBundle(new Uint8Array(await file.arrayBuffer()), actor) };
});
