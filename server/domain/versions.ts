/**
 * OpenShift release versions and RHCOS build strings. `parseOcpVersion` is the lenient reading the
 * console uses to sort and group releases; `parseGenericVersion` is exactly how the MCO parses the
 * versions it compares (docs/openshift.md §17.2).
 */
export type Version = { major: number; minor: number; patch: number };

/** A version as k8s.io/apimachinery/pkg/util/version keeps it: every numeric component, arbitrarily large. */
export type GenericVersion = { components: bigint[] };

const UINT64_MAX = 2n ** 64n - 1n;

/**
 * k8s.io/apimachinery/pkg/util/version `ParseGeneric`, which the MCO uses for every version it
 * compares (docs/openshift.md §17.2): optional surrounding whitespace and a leading "v", then two or
 * more dot-separated numbers, the first without a leading zero (later ones may have them: "4.013"
 * is 4.13), each fitting an unsigned 64-bit integer; whatever follows the numbers is ignored
 * ("4.13.0-rc.1" is 4.13.0). Anything else is null, where the MCO gets an error.
 */
export function parseGenericVersion(text: string | null | undefined): GenericVersion | null {
  if (typeof text !== "string") return null;
  const m = /^\s*v?([0-9]+(?:\.[0-9]+)*)/.exec(text);
  // What follows the numbers is matched by RE2's `.*`, which stops at a newline: one there fails the parse.
  if (!m || text.slice(m[0].length).includes("\n")) return null;
  const parts = m[1]!.split(".");
  if (parts.length < 2) return null;
  if (parts[0]!.length > 1 && parts[0]!.startsWith("0")) return null;
  const components = parts.map((p) => BigInt(p));
  if (components.some((c) => c > UINT64_MAX)) return null;
  return { components };
}

/** `Version.Compare`: component by component; extra components count only when not all zero. */
export function compareGeneric(a: GenericVersion, b: GenericVersion): number {
  const n = Math.max(a.components.length, b.components.length);
  for (let i = 0; i < n; i++) {
    const x = a.components[i] ?? 0n;
    const y = b.components[i] ?? 0n;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** `fmt.Sprintf("%d.%d.%d", v.Major(), v.Minor(), v.Patch())`: Patch is 0 when there is no third component. */
export const genericMajorMinorPatch = (v: GenericVersion) => `${v.components[0]!}.${v.components[1]!}.${v.components[2] ?? 0n}`;

export function parseOcpVersion(text: string | null | undefined): Version | null {
  if (typeof text !== "string") return null;
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text.trim());
  if (!m) return null;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0) };
}

/**
 * A release a person may ask readiness for: 4.22 or 4.22.3, without leading zeros and with numbers
 * of a plausible size (the checks walk the minor releases in between).
 */
export const TARGET_VERSION = /^(0|[1-9]\d?)\.(0|[1-9]\d{0,2})(\.(0|[1-9]\d{0,3}))?$/;

export const formatVersion = (v: Version) => `${v.major}.${v.minor}.${v.patch}`;
/** The minor a version belongs to: 4.19.10 → "4.19". */
export const formatMinor = (v: Version) => `${v.major}.${v.minor}`;

export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/** Orders version texts as versions (4.9 before 4.12); text that is not a version sorts last. */
export function compareVersionTexts(a: string | null | undefined, b: string | null | undefined): number {
  const x = parseOcpVersion(a);
  const y = parseOcpVersion(b);
  if (x && y) return compareVersions(x, y);
  return x ? -1 : y ? 1 : 0;
}

/** "4.19.10" → "4.19"; null when unparseable. */
export function minorOf(text: string | null | undefined): string | null {
  const v = parseOcpVersion(text);
  return v ? formatMinor(v) : null;
}

export type RhcosBuild = {
  scheme: "legacy" | "current";
  /** RHEL major.minor the build is based on, e.g. "8.6", "9.6". */
  rhel: Version;
  /** OpenShift minor the build belongs to, when the string says (legacy scheme only), e.g. "4.12". */
  ocpMinor: string | null;
  /** Build date, YYYY-MM-DD. */
  date: string;
};

/**
 * RHCOS build strings: legacy `4MM.RR.YYYYMMDDHHmm-N` (412.86.202212081411-0 = OCP 4.12 on RHEL 8.6;
 * "810" means RHEL 8.10) and current `R.r.YYYYMMDD-N` (9.6.20250701-0 = RHEL 9.6), docs/openshift.md
 * §18. For display and ordering; the skew check reads builds its own way (skew.ts `checkRhcosVersionSkew`).
 */
export function parseRhcosBuild(text: string | null | undefined): RhcosBuild | null {
  if (typeof text !== "string") return null;
  // Like the MCO, only the first three dot-separated fields are read; a fourth is ignored.
  const parts = text.trim().split(".");
  if (parts.length < 3) return null;
  const [first, second, third] = parts as [string, string, string];
  const datePart = third.split("-")[0]!;
  if (!/^\d+$/.test(first) || !/^\d+$/.test(second) || !/^\d+$/.test(datePart)) return null;
  const date = `${datePart.slice(0, 4)}-${datePart.slice(4, 6)}-${datePart.slice(6, 8)}`;
  if (datePart.length === 8) {
    return { scheme: "current", rhel: { major: Number(first), minor: Number(second), patch: 0 }, ocpMinor: null, date };
  }
  if (datePart.length === 12 && second.length >= 2) {
    const ocp = /^(\d)(\d{2})$/.exec(first);
    return {
      scheme: "legacy",
      rhel: { major: Number(second[0]), minor: Number(second.slice(1)), patch: 0 },
      ocpMinor: ocp ? `${ocp[1]}.${Number(ocp[2])}` : null,
      date,
    };
  }
  return null;
}
