import pg from "pg";
import { describe, expect, it } from "vitest";
import { KubeError } from "../kube/client";
import { listAudit } from "../store/audit";
import { useMigratedDatabase } from "../testing/database";
import { auditedClusterWrite } from "./access";

const db = useMigratedDatabase();

async function sql(text: string) {
  const client = new pg.Client({ connectionString: db().url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

describe("audited writes to clusters", () => {
  it("a write the cluster accepted stands, and is not reported as refused, when its audit event cannot be written", async () => {
    const who = { actor: "alice", role: "approver", ip: null };
    // The audit log refuses every insert for a while (a full disk, a lost connection, …).
    await sql(`CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit log unavailable'; END $$;
               CREATE TRIGGER refuse_audit BEFORE INSERT ON "AuditEvent" FOR EACH ROW EXECUTE FUNCTION refuse_audit();`);
    let writes = 0;
    const errors: unknown[][] = [];
    const log = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      const result = await auditedClusterWrite(who, "prod-east", { object: "MachineConfiguration cluster", change: "set x" }, async () => {
        writes++;
        return "patched";
      });
      expect(result).toBe("patched");
      expect(writes).toBe(1);
    } finally {
      console.error = log;
      await sql(`DROP TRIGGER refuse_audit ON "AuditEvent"; DROP FUNCTION refuse_audit();`);
    }
    // The event is kept whole in the server log, to be recovered.
    expect(errors.map((e) => String(e[0])).join("\n")).toMatch(/could not write an audit event after 3 attempts/);
    expect(String(errors.at(-1)?.[1])).toContain('"summary":"set x on prod-east: done"');
    // Nothing claims the cluster refused it.
    expect((await listAudit({ target: "prod-east" })).filter((e) => e.outcome === "failure")).toEqual([]);
  });

  it("a write the cluster refused is recorded as a failure with its answer, and an internal error without its text", async () => {
    const who = { actor: "alice", role: "approver", ip: null };
    await expect(
      auditedClusterWrite(who, "prod-west", { object: "x", change: "set y" }, async () => {
        throw new KubeError("forbidden", "machineconfigurations.operator.openshift.io is forbidden", 403);
      }),
    ).rejects.toThrow(KubeError);
    expect((await listAudit({ target: "prod-west" }))[0]).toMatchObject({
      outcome: "failure",
      summary: "set y on prod-west failed: machineconfigurations.operator.openshift.io is forbidden (HTTP 403)",
    });
    const log = console.error;
    console.error = () => undefined;
    try {
      await expect(
        auditedClusterWrite(who, "prod-north", { object: "x", change: "set z" }, async () => {
          throw new TypeError("Cannot read properties of undefined (reading 'spec')");
        }),
      ).rejects.toThrow(TypeError);
    } finally {
      console.error = log;
    }
    expect((await listAudit({ target: "prod-north" }))[0]!.summary).toBe(
      "set z on prod-north failed: an error in Fleetskew; the details are in the server log",
    );
  });
});
