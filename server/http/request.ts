import { readConfig, type AppConfig } from "../config/env";

let cached: AppConfig | undefined;
/** Configuration for request handling, read once per process. */
export function requestConfig(): AppConfig {
  return (cached ??= readConfig());
}

const trustProxy = () => process.env.FLEETSKEW_TRUST_PROXY === "1" || process.env.FLEETSKEW_TRUST_PROXY === "true";

/** Header the start script's HTTP server sets from the socket; any value sent by a client is replaced. */
export const CLIENT_IP_HEADER = "x-fleetskew-client-ip";

export function clientIp(headers: Headers): string {
  if (trustProxy()) {
    const forwarded = headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  return headers.get(CLIENT_IP_HEADER) ?? "unknown";
}

/** The origin the browser used, which is what a same-origin request's Origin header carries. */
export function requestOrigin(request: Request): string {
  const url = new URL(request.url);
  const host = (trustProxy() && request.headers.get("x-forwarded-host")) || request.headers.get("host") || url.host;
  const proto = (trustProxy() && request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim()) || url.protocol.replace(":", "");
  return `${proto}://${host}`;
}

export const isHttps = (request: Request) => requestOrigin(request).startsWith("https://");
