import { UPLOAD_LIMITS } from "@/server/clusters/dumpUpload";
import { importOfflineCluster, offlineImportFromForm } from "@/server/clusters/offlineImport";
import { apiRoute, json } from "@/server/http/api";
import { readMultipartForm } from "@/server/http/multipart";

export const dynamic = "force-dynamic";

/** Import an offline cluster from object dumps (admin): multipart/form-data, see docs/api.md. */
export const POST = apiRoute({ access: ["admin"], rawBody: true }, async ({ request, actor }) => {
  // Room for the form's boundaries and text fields around the files themselves.
  const form = await readMultipartForm(request, UPLOAD_LIMITS.maxUploadBytes + 64 * 1024);
  return json(await importOfflineCluster(await offlineImportFromForm(form), actor), { status: 201 });
});
