import type { HubSimulator } from "../simulator/hub/server";

/** The body of POST /api/v1/hubs for a simulated hub, as an admin would fill it in; `over` changes or adds fields. */
export function hubRegistrationBody(sim: HubSimulator, name: string, over: Record<string, unknown> = {}) {
  const r = sim.registration();
  return {
    name,
    apiUrl: r.hubApiUrl,
    ca: r.ca,
    readerToken: r.readerToken,
    proxyUrl: r.proxyUrl,
    proxyCa: r.proxyCa,
    proxyToken: r.proxyToken,
    proxyImpersonatedUser: r.proxyImpersonatedUser,
    ...over,
  };
}
