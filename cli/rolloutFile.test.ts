import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readRolloutFile } from "./rolloutFile";

const problems = (text: string) => {
  const read = readRolloutFile(text, true);
  if (read.ok) throw new Error("accepted");
  return read.problems;
};
const upgrade = (rest: string) => `kind: upgrade\ntarget: "4.19.11"\nselection: {query: "version=4.19"}\n${rest}`;

describe("a rollout file", () => {
  it("is the request as written, with dryRun from the command line", () => {
    const example = readFileSync(path.resolve(__dirname, "../examples/rollout.yaml"), "utf8");
    const read = readRolloutFile(example, true);
    expect(read).toMatchObject({
      ok: true,
      body: { kind: "upgrade", target: "4.19.11", dryRun: true, strategy: { minSuccessTime: "30m" } },
    });
    expect(readRolloutFile(example, false)).toMatchObject({ ok: true, body: { dryRun: false } });
  });

  it("names each field that is wrong, in plain words", () => {
    expect(problems("kind: upgrad\n")).toEqual(['kind: must be one of upgrade, bundle, acknowledgement, not "upgrad"']);
    expect(problems("target: 4.19.11\n")).toEqual(["kind: must be one of upgrade, bundle, acknowledgement (it is missing)"]);
    expect(problems("kind: upgrade\ntarget: 4.19\nselection: {query: x}\n")).toEqual([
      'target: must be a string, not a number (quote it: "4.19")',
    ]);
    expect(problems('kind: upgrade\ntarget: "4.19"\nselection: {query: x}\n')).toEqual([
      "target: target must be a release such as 4.19.11",
    ]);
    expect(problems(upgrade("strategy: {maxConcurrency: 0, minSuccessTime: 5x, canaries: -1}\n"))).toEqual([
      "strategy.canaries: must be at least 0",
      "strategy.maxConcurrency: must be a whole number of at least 1, or a percentage such as 25%",
      'strategy.minSuccessTime: "5x" is not a duration; write it as Kubernetes does, such as 30m, 2h or 1h30m',
    ]);
    expect(problems(upgrade("windows: {default: {schedule: 'x', duration: 4h}}\n"))).toEqual([
      'windows.default.schedule: "x" is not a cron schedule of five fields (minute hour day-of-month month day-of-week), such as "0 2 * * 6"',
    ]);
    expect(problems('kind: upgrade\ntarget: "4.19.11"\nselection: {clusters: prod-east}\n')).toEqual([
      "selection.clusters: must be a list, not a string",
    ]);
    expect(problems('kind: upgrade\ntarget: "4.19.11"\nselection: {clusters: []}\n')).toEqual([
      "selection.clusters: name at least one cluster",
    ]);
    expect(problems('kind: upgrade\ntarget: "4.19.11"\nselection: {}\n')).toEqual([
      'selection: give either query (the fleet view\'s query string, e.g. "version=4.19&platform=AWS") or clusters (a list of names), one of them',
    ]);
    expect(problems(upgrade("strategy: {onFailure: stop}\n"))).toEqual(['strategy.onFailure: must be one of "pause", "continue"']);
    expect(problems(upgrade("strategy: {mandatoryGroups: [a]}\n"))).toEqual([
      "strategy.mandatoryGroups: mandatoryGroups needs groupBy: the label whose values they are",
    ]);
    expect(problems(upgrade("dryRun: true\n"))).toEqual(["dryRun: leave it out of the file; --dry-run on the command line decides"]);
    expect(problems(upgrade("approve: yes\n"))).toEqual(["unknown field approve"]);
  });

  it("refuses what is not one YAML mapping of a sane size", () => {
    expect(problems("- kind: upgrade\n")).toEqual([
      "must be a mapping of the request's fields (kind, target, selection, strategy, windows)",
    ]);
    expect(problems("")).toEqual(["must be a mapping of the request's fields (kind, target, selection, strategy, windows)"]);
    expect(problems("kind: upgrade\nkind: bundle\n")[0]).toMatch(/^not valid YAML: Map keys must be unique/);
    expect(problems("a: [\n")[0]).toMatch(/^not valid YAML: /);
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x]",
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}, *${String.fromCharCode(97 + i)}]`,
      ),
    ].join("\n");
    expect(problems(bomb)[0]).toMatch(/^not valid YAML: .*alias/i);
    expect(problems(`kind: upgrade\nnote: "${"x".repeat(600 * 1024)}"\n`)).toEqual(["larger than 512 KiB; a rollout file is a few lines"]);
  });
});
