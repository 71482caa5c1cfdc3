import { registerCluster, RegisterClusterSchema } from "@/server/clusters/registration";
import { fleetListJson } from "@/server/fleet/fleet";
import { apiRoute, json } from "@/server/http/api";

export const dynamic = "force-dynamic";

/** Every cluster with its skew and readiness summary (from the store; no cluster is contacted). */
export const GET = apiRoute(
  { access: "any" },
  async () => new Response(await fleetListJson(), { headers: { "content-type": "application/json" } }),
);

/** Register a cluster (admin): tests the connection, stores the credentials encrypted. */
export const POST = apiRoute({ access: ["admin"], body: RegisterClusterSchema, maxBodyBytes: 600 * 1024 }, async ({ body, actor }) =>
  json(await registerCluster(body, actor), { status: 201 }),
);
