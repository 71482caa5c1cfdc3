/*
 * The string formats the API server checks in a CRD schema, for the ones the extracted schemas use
 * (a unit test keeps that list honest). apiextensions-apiserver pkg/apiserver/validation/formats.go
 * keeps only its supported formats (names compared without "-", so `date-time` is `datetime`); the
 * validator is kube-openapi's (pkg/validation/validate formats.go: strings only), with the checks of
 * kube-openapi pkg/validation/strfmt.
 */

/** strfmt `IsDate`: Go's time.Parse("2006-01-02"): four-digit year, two-digit month and day, a real day of that month. */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12) return false;
  const days = new Date(Date.UTC(2000, month, 0)).getUTCDate(); // month length in a leap year
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day >= 1 && day <= (month === 2 && !leap ? 28 : days);
}

/** strfmt `IsDateTime` (time.go): a date, "t", then `hh:mm:ss[.frac](z|±hh:mm)`, compared case-insensitively. */
export function isDateTime(str: string): boolean {
  if (str.length < 4) return false;
  const parts = str.toLowerCase().split("t");
  if (parts.length < 2 || !isDate(parts[0]!)) return false;
  const m = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/.exec(parts[1]!);
  return !!m && m[1]! <= "23" && m[2]! <= "59" && m[3]! <= "59";
}

const HEX = /^[0-9a-fA-F]{2}$/;
/** url.unescape's check: every `%` starts two hex digits. */
const escapesValid = (s: string) => s.split("%").every((part, i) => i === 0 || HEX.test(part.slice(0, 2)));
/** url.shouldEscape(c, encodeHost) for ASCII: what a host may not hold unescaped. */
const HOST_OK = /^[A-Za-z0-9\-_.~!$&'()*+,;=:[\]<>"%\u0080-\uffff]*$/;
const validOptionalPort = (port: string) => port === "" || /^:[0-9]*$/.test(port);

function validHost(host: string): boolean {
  let rest = host;
  if (host.startsWith("[")) {
    const close = host.lastIndexOf("]");
    if (close < 0 || !validOptionalPort(host.slice(close + 1))) return false;
    rest = host.slice(0, close + 1);
  } else {
    const colon = host.lastIndexOf(":");
    if (colon >= 0 && !validOptionalPort(host.slice(colon))) return false;
  }
  return HOST_OK.test(rest) && escapesValid(rest);
}

/**
 * strfmt `uri` (default.go: govalidator.IsRequestURI), that is Go's net/url.ParseRequestURI
 * succeeding: no control characters, not empty; an absolute URI (a scheme; then an opaque rest, or
 * `//authority` with a valid userinfo, host and numeric port) or an absolute path (`/…`); `%`
 * escapes well formed.
 */
export function isRequestURI(raw: string): boolean {
  if (/[\u0000-\u001f\u007f]/.test(raw) || raw === "") return false;
  if (raw === "*") return true;
  let scheme = "";
  let rest = raw;
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+\-.]*):/.exec(raw);
  if (raw.startsWith(":")) return false; // "missing protocol scheme"
  if (schemeMatch) {
    scheme = schemeMatch[1]!;
    rest = raw.slice(schemeMatch[0].length);
  }
  rest = rest.endsWith("?") && rest.split("?").length === 2 ? rest.slice(0, -1) : rest.split("?")[0]!;
  if (!rest.startsWith("/")) return scheme !== ""; // opaque with a scheme; "invalid URI for request" without
  if (scheme && rest.startsWith("//")) {
    const authority = rest.slice(2).split("/")[0]!;
    rest = rest.slice(2 + authority.length);
    const at = authority.lastIndexOf("@");
    if (!validHost(authority.slice(at + 1))) return false;
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo) || !escapesValid(userinfo)) return false;
    }
  }
  return escapesValid(rest);
}

/** The string formats a CRD schema may name that the API server checks (formats.go `supportedVersionedFormats`). */
export const SUPPORTED_STRING_FORMATS = [
  "bsonobjectid",
  "uri",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "cidr",
  "mac",
  "uuid",
  "uuid3",
  "uuid4",
  "uuid5",
  "isbn",
  "isbn10",
  "isbn13",
  "creditcard",
  "ssn",
  "hexcolor",
  "rgbcolor",
  "byte",
  "password",
  "date",
  "duration",
  "datetime",
  "k8s-short-name",
  "k8s-long-name",
];

const CHECKS: Record<string, (value: string) => boolean> = { datetime: isDateTime, uri: isRequestURI };

/** The string formats this simulator checks; a schema naming another supported one fails the data test rather than pass unchecked. */
export const CHECKED_FORMATS = Object.keys(CHECKS);

/**
 * Whether a string value passes its schema's `format`: true for a format the API server ignores
 * (unsupported, e.g. `int32` on a string) or this simulator does not check.
 */
export function formatAccepts(format: string, value: string): boolean {
  const name = format.replace(/-/g, "");
  return CHECKS[name]?.(value) ?? true;
}
