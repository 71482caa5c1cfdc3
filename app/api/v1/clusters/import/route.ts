import { clusterAdminEndpoints } from "@/server/clusters/contract";
import { UPLOAD_LIMITS } from "@/server/clusters/dumpUpload";
import { importOfflineCluster, offlineImportFromForm } from "@/server/clusters/offlineImport";
import { apiRoute } from "@/server/http/api";
import { readMultipartForm } from "@/server/http/multipart";

export const dynamic = "force-dynamic";

/** Import an offline cluster from object dumps (admin): multipart/form-data, see docs/api.md. */
export const POST = apiRoute(clusterAdminEndpoints.importOffline, async ({ request, actor }) => {
  // Room for the form's boundaries and text fields around the files themselves.
  const form = await readMultipartForm(request, UPLOAD_LIMITS.maxUploadBytes + 64 * 1024);
  return importOfflineCluster(await offlineImportFromForm(form), actor);
});
