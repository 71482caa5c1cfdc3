import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments, stringify } from "yaml";
import { ALERTS, runbookUrl } from "../../server/alerts/catalog";
import { schemaProblems } from "../schemas";

/**
 * The PrometheusRule objects of deploy/monitoring/, as a plain Prometheus loads them: `spec.groups`
 * written out as a rules file, checked with `promtool check rules` and unit-tested with
 * `promtool test rules` against tests/<file>.test.yaml (Prometheus from Debian's `prometheus`
 * package; .ci/run installs it). Without promtool this test fails: it does not skip.
 */
const root = path.resolve(__dirname, "../..");
const dir = path.join(root, "deploy/monitoring");
const FILES = ["fleet-alerts.yaml", "prometheusrule.yaml"];

type Rule = { alert?: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
type PrometheusRule = { kind: string; spec: { groups: { name: string; rules: Rule[] }[] } };
const load = (file: string) => parse(readFileSync(path.join(dir, file), "utf8")) as PrometheusRule;
const rulesOf = (file: string) => load(file).spec.groups.flatMap((g) => g.rules);

function promtool(): string {
  const found = spawnSync("sh", ["-c", "command -v promtool"], { encoding: "utf8" }).stdout.trim();
  if (!found)
    throw new Error("promtool is not installed: apt-get install -y prometheus (Debian's package; .ci/run installs it when missing)");
  return found;
}

const work = mkdtempSync(path.join(os.tmpdir(), "fleetskew-rules-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.each(FILES)("deploy/monitoring/%s", (file) => {
  const base = file.replace(/\.yaml$/, "");

  it("is a valid PrometheusRule whose spec.groups promtool accepts as a rules file", async () => {
    const object = load(file);
    expect(await schemaProblems(object as unknown as Record<string, unknown>)).toEqual([]);
    writeFileSync(path.join(work, `${base}.rules.yaml`), stringify({ groups: object.spec.groups }));
    const out = execFileSync(promtool(), ["check", "rules", path.join(work, `${base}.rules.yaml`)], { encoding: "utf8" });
    expect(out).toContain("SUCCESS");
  });

  it("passes its promtool unit tests, which cover every alert it defines", () => {
    const testFile = path.join(dir, "tests", `${base}.test.yaml`);
    const tests = parse(readFileSync(testFile, "utf8")) as { tests: { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }[] };
    const fired = new Set(tests.tests.flatMap((t) => t.alert_rule_test.filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname)));
    for (const rule of rulesOf(file)) expect(fired, `no promtool test sees ${rule.alert} fire`).toContain(rule.alert);
    writeFileSync(path.join(work, `${base}.rules.yaml`), stringify({ groups: load(file).spec.groups }));
    copyFileSync(testFile, path.join(work, `${base}.test.yaml`));
    const run = spawnSync(promtool(), ["test", "rules", `${base}.test.yaml`], { cwd: work, encoding: "utf8" });
    expect(run.stdout + run.stderr).toContain("SUCCESS");
    expect(run.status).toBe(0);
  });

  it("follows OpenShift's alerting conventions: name, severity, summary, description, runbook, for", () => {
    for (const rule of rulesOf(file)) {
      const name = rule.alert!;
      expect(name).toMatch(/^Fleetskew[A-Z][A-Za-z]+$/);
      const def = ALERTS.find((a) => a.name === name);
      expect(def, `${name} is not in server/alerts/catalog.ts`).toBeDefined();
      expect(def!.file).toBe(file);
      expect(rule.labels?.severity, name).toBe(def!.severity);
      expect(rule.annotations?.summary, name).toBeTruthy();
      expect(rule.annotations?.description, name).toBeTruthy();
      expect(rule.annotations?.runbook_url, name).toBe(runbookUrl(name));
      expect(existsSync(path.join(root, "docs/runbooks", `${name}.md`)), `docs/runbooks/${name}.md`).toBe(true);
      expect(readFileSync(path.join(root, "docs/alerts.md"), "utf8"), `docs/alerts.md lists ${name}`).toContain(`### ${name}`);
      // Sweeps come every 5 minutes: a rule that fires at once would flap on one sweep.
      expect(rule.for, `${name} has no for:`).toMatch(/^\d+[mh]$/);
    }
  });
});

it("the catalog lists exactly the alerts deploy/monitoring/ defines", () => {
  const defined = FILES.flatMap((f) => rulesOf(f).map((r) => r.alert)).sort();
  expect(ALERTS.map((a) => a.name).sort()).toEqual(defined);
});

it("servicemonitor.yaml: a valid Service, ServiceMonitor (bearer token from Secret fleetskew key metrics-token) and NetworkPolicy", async () => {
  const docs = parseAllDocuments(readFileSync(path.join(dir, "servicemonitor.yaml"), "utf8")).map(
    (d) => d.toJS() as Record<string, unknown>,
  );
  expect(docs.map((d) => d.kind)).toEqual(["Service", "ServiceMonitor", "NetworkPolicy"]);
  for (const d of docs) expect(await schemaProblems(d), String(d.kind)).toEqual([]);
  const endpoint = (docs[1] as { spec: { endpoints: { path: string; bearerTokenSecret: unknown }[] } }).spec.endpoints[0]!;
  expect(endpoint).toMatchObject({ path: "/metrics", bearerTokenSecret: { name: "fleetskew", key: "metrics-token" } });
  const web = readFileSync(path.join(root, "deploy/base/web.yaml"), "utf8");
  expect(web).toMatch(/name: FLEETSKEW_METRICS_TOKEN\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: fleetskew\n\s+key: metrics-token/);
});
