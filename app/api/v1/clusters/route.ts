import { listClusterSummaries, registerCluster, RegisterClusterSchema } from "@/server/clusters/registration";
import { apiRoute, json } from "@/server/http/api";

export const dynamic = "force-dynamic";

export const GET = apiRoute({ access: "any" }, async () => ({ clusters: await listClusterSummaries() }));

/** Register a cluster (admin): tests the connection, stores the credentials encrypted. */
export const POST = apiRoute({ access: ["admin"], body: RegisterClusterSchema, maxBodyBytes: 600 * 1024 }, async ({ body, user, ip }) =>
  json(await registerCluster(body, { user: user!, ip }), { status: 201 }),
);
