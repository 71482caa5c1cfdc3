import { listVettedBundles, vetBundle, VetBundleSchema } from "@/server/bundles/bundles";
import { apiRoute, json } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Digests of bundle manifests vetted as trusted. */
export const GET = apiRoute({ access: ["technician", "approver"] }, async () => ({ vetted: await listVettedBundles() }));

/** Vet a manifest digest (approver or admin). */
export const POST = apiRoute({ access: ["approver"], body: VetBundleSchema }, async ({ body, actor }) =>
  json({ vetted: await vetBundle(body, actor) }, { status: 201 }),
);
