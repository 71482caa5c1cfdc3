import type { z } from "zod";

/**
 * A refused request's problems in plain words, each with the field it is about: the sentence is for
 * a person ("The RHCOS build is required when …"), never a schema path ("evidence.rhcosBuild: …");
 * `field` (the path, dotted) is for the form that puts the sentence beside that field.
 */
export type PlainIssue = { error: string; field: string | null };

/** How a field is named in a sentence, where its words alone would read wrong. */
const FIELD_WORDS: Record<string, string> = {
  rhcosVersion: "RHCOS build",
  ocpVersion: "OCP version",
  machineConfig: "MachineConfig",
  machineSets: "MachineSets",
  q: "search",
  from: "start (from)",
  to: "end (to)",
  after: "page position (after)",
  id: "ID",
  url: "URL",
  sha256: "SHA-256 digest",
  capturedAt: "capture time",
};
const ACRONYMS = new Set(["ocp", "rhcos", "rhel", "id", "url", "ip", "mco", "sso", "oidc", "csv", "api", "ca", "tls"]);

/** "rhcosVersion" → "RHCOS build", "fromRelease" → "from release", ["entries", 0, "ocpVersion"] → "OCP version (entry 1)". */
export function fieldWords(path: readonly PropertyKey[]): string {
  const names = path.filter((p): p is string => typeof p === "string");
  const last = names.at(-1);
  if (!last) return "the request";
  const words =
    FIELD_WORDS[last] ??
    last
      .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
      .split(/[\s_-]+/)
      .map((w) => (ACRONYMS.has(w.toLowerCase()) ? w.toUpperCase() : w.toLowerCase()))
      .join(" ");
  const index = path.findLast((p) => typeof p === "number");
  return index === undefined ? words : `${words} (item ${index + 1})`;
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
// A message that reads on after its subject: "must be …", "is forbidden …", "may be at most …".
const PREDICATE = /^(must|is|are|may|has|have|cannot|can't|can|needs?|should|was|does|do|contains?|looks?|matches)\b/;
// What earlier messages put in front of themselves: "comment: …".
const PATH_PREFIX = /^[A-Za-z_$][\w$]*(\.[\w$]+)*:\s*/;

/**
 * A message written for a field ("must be …", "ocpVersion is required …", "comment: say why …") as a
 * sentence that stands alone: the field's words in front where the message reads on from them.
 */
export function sentenceOf(path: readonly PropertyKey[], message: string): string {
  const subject = fieldWords(path);
  const The = subject === "MachineConfig" || subject === "the request" ? capital(subject) : `The ${subject}`;
  let m = message.replace(PATH_PREFIX, "");
  // A message that starts with the field's own name ("ocpVersion is required …") starts with its words instead.
  const key = path.findLast((p) => typeof p === "string");
  if (typeof key === "string" && m.startsWith(`${key} `)) m = `${The} ${m.slice(key.length + 1)}`;
  else if (PREDICATE.test(m)) m = `${The} ${m}`;
  else if (/^at (most|least)\b/.test(m)) m = `${The} may have ${m}`;
  return capital(m);
}

/** One zod issue as a sentence a person can act on. */
export function plainIssue(issue: z.core.$ZodIssue): PlainIssue {
  const field = issue.path.length ? issue.path.map(String).join(".") : null;
  const subject = fieldWords(issue.path);
  const The = subject === "MachineConfig" || subject === "the request" ? capital(subject) : `The ${subject}`;
  const input = (issue as { input?: unknown }).input;
  const is = /[^su]s$/.test(subject) ? "are" : "is";
  let text: string;
  switch (issue.code) {
    case "unrecognized_keys":
      text = `${issue.keys.map((k) => `"${k}"`).join(", ")} ${issue.keys.length === 1 ? "is not a field" : "are not fields"} this request takes`;
      break;
    case "invalid_type": {
      // zod keeps the input on an issue only when asked to; its own message still says what it got.
      const missing = "input" in issue ? input === undefined : /received undefined$/.test(issue.message);
      text = missing ? `${The} ${is} missing` : `${The} must be ${/^[aeiou]/.test(issue.expected) ? "an" : "a"} ${issue.expected}`;
      break;
    }
    case "too_small":
      text =
        issue.origin === "string" && Number(issue.minimum) <= 1
          ? `${The} is empty; fill it in`
          : issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint"
            ? `${The} must be at least ${String(issue.minimum)}`
            : `${The} must have at least ${String(issue.minimum)} ${issue.origin === "string" ? "characters" : "items"}`;
      break;
    case "too_big":
      text =
        issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint"
          ? `${The} may be at most ${String(issue.maximum)}`
          : `${The} may have at most ${String(issue.maximum)} ${issue.origin === "string" ? "characters" : "items"}`;
      break;
    case "invalid_value":
      text = `${The} must be one of ${issue.values.map(String).join(", ")}`;
      break;
    default: {
      // "Invalid discriminator value. Expected 'upgrade' | 'bundle'" and the like.
      const expected = /Expected (.+)$/.exec(issue.message)?.[1];
      text = expected ? `${The} must be one of ${expected.replace(/'/g, "").replace(/ \| /g, ", ")}` : "";
    }
  }
  // A message the schema wrote itself says more than the generic one, unless it is zod's own wording.
  const own = issue.message && !/^(Invalid|Too (small|big)|Unrecognized|Expected)\b/.test(issue.message) ? issue.message : "";
  if (own || !text) text = sentenceOf(issue.path, own || issue.message || "is not valid");
  return { error: text, field };
}

/** Every problem, each once per field (the first), for a form that marks them all. */
export function plainIssues(error: z.ZodError): PlainIssue[] {
  const seen = new Set<string>();
  return error.issues.map(plainIssue).filter((i) => {
    const key = i.field ?? "";
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
