import { listBundles, MAX_MANIFEST_BYTES, uploadBundle } from "@/server/bundles/bundles";
import { UserFacingError } from "@/server/errors";
import { apiRoute, json } from "@/server/http/api";
import { readMultipartForm } from "@/server/http/multipart";

export const dynamic = "force-dynamic";

/** Bundles uploaded so far (only vetted, valid manifests are kept). */
export const GET = apiRoute({ access: ["technician", "approver"] }, async () => ({ bundles: await listBundles() }));

/** Upload a manifest (technician or admin): multipart/form-data with the file in `manifest`. */
export const POST = apiRoute({ access: ["technician"], rawBody: true }, async ({ request, actor }) => {
  const form = await readMultipartForm(request, MAX_MANIFEST_BYTES + 64 * 1024);
  const file = form.get("manifest");
  if (!(file instanceof File)) throw new UserFacingError(400, "Attach the manifest file as the form field `manifest`");
  return json({ bundle: await uploadBundle(new Uint8Array(await file.arrayBuffer()), actor) }, { status: 201 });
});
