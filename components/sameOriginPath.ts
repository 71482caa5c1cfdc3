/**
 * Where to go after signing in: `next` only when a browser would resolve it to a page of the
 * console itself. It is judged the way the browser will read it, with the WHATWG URL parser against
 * the console's origin: backslashes count as slashes ("/\\evil.example" is another host), tabs and
 * newlines are dropped ("/\t/evil.example" too), and "/.//evil.example" normalises to a
 * protocol-relative path. Used by the sign-in page on the server and by the sign-in form in the
 * browser, so both decide alike. Pure, for both sides to import.
 */
export const AFTER_SIGN_IN = "/fleet";

export function sameOriginPath(next: string | null | undefined, origin: string): string | null {
  if (!next || next.length > 2048) return null;
  // Control characters are stripped by the URL parser; whatever relies on that is not a plain path.
  if (/[\u0000-\u001F\u007F]/.test(next)) return null;
  if (!next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return null;
  let base: URL;
  let url: URL;
  try {
    base = new URL(origin);
    url = new URL(next, base);
  } catch {
    return null;
  }
  if (url.origin !== base.origin) return null;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // What the browser will be given must itself be a same-origin path, not "//host/…".
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return null;
  return path;
}

/** The page to open after signing in: `next` when it is safe, else the fleet. */
export const afterSignIn = (next: string | null | undefined, origin: string) => sameOriginPath(next, origin) ?? AFTER_SIGN_IN;
