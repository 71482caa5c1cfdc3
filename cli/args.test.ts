import { describe, expect, it } from "vitest";
import { EXIT, HELP, parseCommandLine } from "./args";

const command = (...argv: string[]) => parseCommandLine(argv).command;
const usage = (...argv: string[]) => {
  try {
    parseCommandLine(argv);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${argv.join(" ")} was accepted`);
};

describe("the command line", () => {
  it("reads each command with its own flags, global flags anywhere", () => {
    expect(command("clusters", "list", "--query", "?skew=blocked&platform=AWS")).toEqual({
      name: "clusters list",
      query: "skew=blocked&platform=AWS",
    });
    expect(command("readiness", "prod-east", "--target", "4.19.11")).toEqual({
      name: "readiness",
      cluster: "prod-east",
      target: "4.19.11",
    });
    expect(command("rollout", "plan", "-f", "r.yaml", "--dry-run")).toEqual({ name: "rollout plan", file: "r.yaml", dryRun: true });
    expect(command("rollout", "plan", "--file=r.yaml")).toEqual({ name: "rollout plan", file: "r.yaml", dryRun: false });
    expect(command("rollout", "status", "12", "--watch", "--interval", "2.5")).toEqual({
      name: "rollout status",
      id: "12",
      watch: true,
      intervalMs: 2500,
    });
    expect(command("rollout", "status", "7B1A5E26-0F0E-4C56-9F5B-6A4C2D1E0F00")).toMatchObject({
      id: "7b1a5e26-0f0e-4c56-9f5b-6a4c2d1e0f00",
      watch: false,
      intervalMs: 10_000,
    });
    const { global } = parseCommandLine(["--output", "json", "clusters", "list", "--server", "https://c.example", "--timeout", "5"]);
    expect(global).toEqual({ server: "https://c.example", token: undefined, output: "json", timeoutMs: 5000, allowHttp: false });
  });

  it("hands everything after preview to preview, and shows help for --help or nothing", () => {
    expect(command("preview", "--from", "a.yaml", "--to", "b.yaml", "--format", "text")).toEqual({
      name: "preview",
      args: ["--from", "a.yaml", "--to", "b.yaml", "--format", "text"],
    });
    expect(command()).toEqual({ name: "help" });
    expect(command("rollout", "plan", "--help")).toEqual({ name: "help" });
  });

  it("names the mistake in words, before anything is sent", () => {
    expect(usage("rollout", "plan")).toBe("rollout plan needs the rollout file: fleetskew rollout plan -f rollout.yaml [--dry-run]");
    expect(usage("rollout", "plan", "-f", "r.yaml", "--watch")).toBe("--watch is not an option of rollout plan");
    expect(usage("clusters", "list", "--dry-run")).toBe("--dry-run is not an option of clusters list");
    expect(usage("rollout", "status")).toMatch(/^rollout status needs the rollout's id or number/);
    expect(usage("rollout", "status", "../../users")).toBe('"../../users" is not a rollout\'s number or id');
    expect(usage("rollout", "status", "1", "2")).toBe('rollout status ID takes no more words; "2" is one too many');
    expect(usage("readiness")).toMatch(/^readiness needs a cluster's name/);
    expect(usage("clusters", "delete")).toBe('unknown command "clusters delete"; see fleetskew --help');
    expect(usage("clusters", "list", "--colour")).toMatch(/Unknown option '--colour'/);
    expect(usage("clusters", "list", "--output", "yaml")).toBe('--output must be text or json, not "yaml"');
    expect(usage("clusters", "list", "--timeout", "0")).toBe('--timeout must be a number of seconds above 0 and at most 600, not "0"');
    expect(usage("rollout", "status", "1", "--interval", "soon")).toMatch(/^--interval must be a number of seconds/);
  });

  it("documents every exit code in --help", () => {
    for (const code of Object.values(EXIT)) expect(HELP).toMatch(new RegExp(`^  ${code}  \\S`, "m"));
  });
});
