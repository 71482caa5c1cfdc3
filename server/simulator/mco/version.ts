/**
 * Versions as the MCO reads them (k8s.io/apimachinery/pkg/util/version `ParseGeneric`, which the MCO
 * vendors): optional whitespace and "v", two or more dot-separated unsigned numbers — the first
 * without a leading zero — then anything except a newline, which is ignored.
 */
export type MCOVersion = readonly bigint[];

const MAX_UINT = (1n << 64n) - 1n;

export function parseGeneric(text: string | null | undefined): MCOVersion | null {
  if (typeof text !== "string") return null;
  const m = /^\s*v?(\d+(?:\.\d+)*)([^\n]*)$/.exec(text);
  if (!m) return null;
  const fields = m[1]!.split(".");
  if (fields.length < 2 || (fields[0]!.startsWith("0") && fields[0] !== "0")) return null;
  const out = fields.map(BigInt);
  return out.every((n) => n <= MAX_UINT) ? out : null;
}

/** `Version.LessThan`: missing components count as zero. */
export function lessThan(a: MCOVersion, b: MCOVersion): boolean {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0n;
    const y = b[i] ?? 0n;
    if (x !== y) return x < y;
  }
  return false;
}

/** `fmt.Sprintf("%d.%d.%d", v.Major(), v.Minor(), v.Patch())`. */
export const xyz = (v: MCOVersion) => `${v[0]}.${v[1]}.${v[2] ?? 0n}`;

type HistoryEntry = { state?: string; version?: string };

/**
 * `GetOCPInstallVersion` (pkg/apihelpers/apihelpers.go): from the oldest entry, the first
 * Completed one; if none, or its version is empty, the oldest entry's version; "0.0.0" when history
 * is empty or the version does not parse.
 */
export function ocpInstallVersion(history: readonly HistoryEntry[] | undefined): string {
  if (!history || history.length === 0) return "0.0.0";
  let chosen = "";
  for (let i = history.length - 1; i >= 0; i--)
    if (history[i]!.state === "Completed") {
      chosen = history[i]!.version ?? "";
      break;
    }
  if (chosen === "") chosen = history[history.length - 1]!.version ?? "";
  const v = parseGeneric(chosen);
  return v ? xyz(v) : "0.0.0";
}

/** `getCurrentOCPVersionFromClusterVersion` (pkg/operator/sync.go): the newest entry, whatever its state; "" when unreadable. */
export function currentOcpVersion(history: readonly HistoryEntry[] | undefined): string {
  const v = parseGeneric(history?.[0]?.version);
  return v ? xyz(v) : "";
}

/**
 * Which MCO release line a cluster runs, for rules that changed between branches: major and minor
 * of its release. The release after 4.22 is the 5.0 line (release-4.23 cherry-picks say release-5.0).
 */
export function releaseLine(version: string): { major: number; minor: number } {
  const v = parseGeneric(version);
  return v ? { major: Number(v[0]), minor: Number(v[1]) } : { major: 0, minor: 0 };
}

/** At or after 4.`minor` (any later major counts as after). */
export const atLeast = (version: string, minor: number) => {
  const r = releaseLine(version);
  return r.major > 4 || (r.major === 4 && r.minor >= minor);
};
