import type { Condition } from "@/server/fleet/contract";
import { Table } from "../../ui";

/** One object's status conditions, as `oc get -o yaml` lists them. */
export function Conditions({ title, conditions }: { title: string; conditions: Condition[] | null | undefined }) {
  if (!conditions?.length) return null;
  return (
    <div>
      <h3 className="mt-2 text-sm font-semibold">{title}</h3>
      <Table
        caption={title}
        head={["Type", "Status", "Reason", "Message"]}
        rows={conditions.map((c) => [c.type, c.status, c.reason ?? "", <span className="text-xs">{c.message ?? ""}</span>])}
      />
    </div>
  );
}
