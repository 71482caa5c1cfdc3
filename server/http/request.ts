import { appConfig } from "../config/current";
import type { AppConfig } from "../config/env";
import { normalisePeer } from "../config/sso";

/** Header the start script's HTTP server sets from the socket; any value sent by a client is replaced. */
export const CLIENT_IP_HEADER = "x-fleetskew-client-ip";

const SOCKET_PEER_MARK = Symbol.for("fleetskew.socketPeerHeader");
const marks = globalThis as unknown as Record<symbol, boolean | undefined>;

/**
 * Said by the HTTP server that sets CLIENT_IP_HEADER from the socket on every request (the start
 * script) before it serves any. Without it the header may have come from the client, and
 * socketPeer answers nothing.
 */
export function markSocketPeerHeader(): void {
  marks[SOCKET_PEER_MARK] = true;
}

/**
 * The TCP peer of the request: the address the connection came from, as the start script's server
 * read it off the socket. Never X-Forwarded-For, which the client writes. Null when unknown.
 */
export function socketPeer(headers: Headers): string | null {
  if (!marks[SOCKET_PEER_MARK]) return null;
  const value = headers.get(CLIENT_IP_HEADER);
  return value && value !== "unknown" ? normalisePeer(value) : null;
}

/** The entries of a comma-separated forwarding header, in order. */
const hops = (value: string | null) =>
  (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The entry a trusted proxy wrote: each proxy appends the address it received the request from, so
 * with N proxies in front the client is the Nth entry from the right. Entries further left were sent
 * by the client itself and prove nothing.
 */
export function trustedHop(value: string | null, trustedHops: number): string | undefined {
  const list = hops(value);
  if (trustedHops <= 0 || list.length === 0) return undefined;
  return list[Math.max(0, list.length - trustedHops)];
}

export function clientIp(headers: Headers, config: Pick<AppConfig, "trustedProxyHops"> = appConfig()): string {
  return trustedHop(headers.get("x-forwarded-for"), config.trustedProxyHops) ?? headers.get(CLIENT_IP_HEADER) ?? "unknown";
}

/** The origin the browser used, which is what a same-origin request's Origin header carries. */
export function originOf(headers: Headers, fallbackUrl?: string, config: Pick<AppConfig, "trustedProxyHops"> = appConfig()): string {
  const url = fallbackUrl ? new URL(fallbackUrl) : undefined;
  const trusted = config.trustedProxyHops > 0;
  const host = (trusted && trustedHop(headers.get("x-forwarded-host"), 1)) || headers.get("host") || url?.host || "localhost";
  const proto = (trusted && trustedHop(headers.get("x-forwarded-proto"), 1)) || url?.protocol.replace(":", "") || "http";
  return `${proto}://${host}`;
}

export function requestOrigin(request: Request): string {
  return originOf(request.headers, request.url);
}

/**
 * Whether people reach the console over https: FLEETSKEW_PUBLIC_URL says so, or a trusted proxy
 * does. The start script itself serves plain http.
 */
export function isHttpsRequest(
  headers: Headers,
  config: Pick<AppConfig, "trustedProxyHops" | "publicUrl"> = appConfig(),
  url?: string,
): boolean {
  if (config.publicUrl?.startsWith("https://")) return true;
  return originOf(headers, url, config).startsWith("https://");
}

export const isHttps = (request: Request) => isHttpsRequest(request.headers, appConfig(), request.url);
