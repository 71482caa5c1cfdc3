import { randomBytes } from "node:crypto";

/**
 * The headers every answer of the console carries, set by the start script's HTTP server in front of
 * Next.js. Pages get a Content-Security-Policy with a fresh nonce: Next.js reads the nonce from the
 * request's Content-Security-Policy header and puts it on every script it renders (pages are all
 * rendered per request, app/layout.tsx), so no other script runs. Styles stay 'unsafe-inline':
 * charts and React set style attributes, which nonces cannot cover.
 */
export function contentSecurityPolicy(nonce: string, options: { https: boolean; dev: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${options.dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(options.https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

export const newNonce = () => randomBytes(18).toString("base64");

/** A year, as browsers expect for HSTS; subdomains are not included, the console not knowing its siblings. */
export const HSTS = "max-age=31536000";

export function securityHeaders(options: { https: boolean; dev: boolean; nonce: string }): Record<string, string> {
  return {
    "content-security-policy": contentSecurityPolicy(options.nonce, options),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
    ...(options.https ? { "strict-transport-security": HSTS } : {}),
  };
}
