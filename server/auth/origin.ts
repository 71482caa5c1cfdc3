/**
 * Cross-site request forgery guard for state-changing requests. Browsers send Origin on every
 * cross-origin POST/PUT/PATCH/DELETE and Sec-Fetch-Site on all requests; scripts (curl) send
 * neither and are let through, since they must still present a session cookie.
 */
export function isForeignOrigin(headers: Headers, requestOrigin: string, allowedOrigins: readonly string[] = []): boolean {
  const origin = headers.get("origin");
  if (origin !== null) {
    if (origin === "null") return true;
    const normalised = origin.replace(/\/$/, "");
    return normalised !== requestOrigin && !allowedOrigins.includes(normalised);
  }
  const site = headers.get("sec-fetch-site");
  return site === "cross-site";
}

export const isStateChanging = (method: string) => !["GET", "HEAD", "OPTIONS"].includes(method.toUpperCase());
