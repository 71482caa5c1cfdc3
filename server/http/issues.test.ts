import { describe, expect, it } from "vitest";
import { z } from "zod";
import { allEndpoints } from "../api/endpoints";
import { AcknowledgementRequestSchema } from "../domain/acknowledgements";
import { fieldWords, plainIssue, plainIssues } from "./issues";

// What no answer may begin with: a schema path such as "evidence.rhcosBuild:", "name:" or "entries.0.x:".
const FIELD_PATH = /^[A-Za-z_$][\w$]*(\.[\w$]+)*:/;

/** Bodies a hostile or careless client sends: nothing, the wrong types, an unknown field, absurd sizes. */
const BAD_BODIES: unknown[] = [
  {},
  null,
  [],
  "text",
  { unexpected: true },
  { name: 5, role: 5, cluster: 5, mode: 5, evidence: 5, comment: 5, query: 5, target: 5, entries: 5, selection: 5 },
  { name: "", cluster: "", evidence: "", comment: "", target: "", entries: [{ fromRelease: "x" }], selection: { query: 5 } },
  { comment: "x".repeat(5000), evidence: "x".repeat(5000), name: "x".repeat(5000) },
];
const BAD_QUERIES: Record<string, string>[] = [
  { target: "latest", from: "yesterday", to: "x", status: "bogus", after: "zz", limit: "-1", skew: "purple", version: "x" },
  { cluster: "", sort: "nowhere", dir: "up", registryLess: "maybe" },
];

describe("a refused request reads as a sentence, with the field apart", () => {
  it("names fields in words, not in the code's", () => {
    expect(fieldWords(["rhcosVersion"])).toBe("RHCOS build");
    expect(fieldWords(["entries", 0, "fromRelease"])).toBe("from release (item 1)");
    expect(fieldWords([])).toBe("the request");
  });

  it("an empty acknowledgement request says what to fill in, and which field", () => {
    const parsed = AcknowledgementRequestSchema.safeParse({ cluster: "c", mode: "RHCOSVersion", evidence: "" });
    expect(parsed.success).toBe(false);
    const issue = plainIssue(parsed.error!.issues[0]!);
    expect(issue.field).toBe("evidence");
    expect(issue.error).toMatch(/^Describe the evidence/);
  });

  it("a message that starts with its field's name starts with the field's words", () => {
    const own = z.strictObject({ ocpVersion: z.string().refine(() => false, "ocpVersion is required here") });
    expect(plainIssues(own.safeParse({ ocpVersion: "x" }).error!)[0]!.error).toBe("The OCP version is required here");
  });

  it("a missing RHCOS build is asked for in words, beside its field", () => {
    const parsed = AcknowledgementRequestSchema.safeParse({ cluster: "c", mode: "RHCOSVersion", evidence: "x".repeat(20) });
    expect(plainIssues(parsed.error!)).toEqual([
      { field: "rhcosVersion", error: "Say which RHCOS build the oldest machine boots, e.g. 9.6.20250101-0" },
    ]);
  });

  it("zod's own wording is replaced", () => {
    const schema = z.strictObject({ name: z.string().min(1), role: z.enum(["a", "b"]), n: z.number().max(3), count: z.number() });
    const texts = plainIssues(schema.safeParse({ role: "c", n: 9, count: "two", extra: 1 }).error!).map((i) => i.error);
    expect(texts).toEqual([
      "The name is missing",
      "The role must be one of a, b",
      "The n may be at most 3",
      "The count must be a number",
      '"extra" is not a field this request takes',
    ]);
  });

  const withBody = allEndpoints.filter((e) => e.body);
  const withQuery = allEndpoints.filter((e) => e.query);
  it.each(withBody.map((e) => [`${e.method} ${e.path}`, e] as const))("%s: no body error begins with a field path", (_name, e) => {
    let refused = 0;
    for (const body of BAD_BODIES) {
      const parsed = (e.body as z.ZodType).safeParse(body);
      if (parsed.success) continue;
      refused++;
      for (const issue of plainIssues(parsed.error)) {
        expect(issue.error).not.toMatch(FIELD_PATH);
        expect(issue.error.charAt(0)).toBe(issue.error.charAt(0).toUpperCase());
      }
    }
    expect(refused).toBeGreaterThan(0);
  });
  it.each(withQuery.map((e) => [`${e.method} ${e.path}`, e] as const))("%s: no query error begins with a field path", (_name, e) => {
    for (const query of BAD_QUERIES) {
      const parsed = (e.query as z.ZodType).safeParse(query);
      if (!parsed.success) for (const issue of plainIssues(parsed.error)) expect(issue.error).not.toMatch(FIELD_PATH);
    }
  });
});
