import type { Condition } from "@/server/domain/snapshot";
import { Table, TextWithLinks } from "../../ui";

/** One object's status conditions, as `oc get -o yaml` lists them. */
export function Conditions({ title, conditions }: { title: string; conditions: Condition[] | null | undefined }) {
  if (!conditions?.length) return null;
  return (
    <div>
      <h3 className="mt-2 text-sm font-semibold">{title}</h3>
      <Table
        caption={title}
        rows={conditions}
        rowKey={(c) => c.type}
        columns={[
          { head: "Type", cell: (c) => c.type },
          { head: "Status", cell: (c) => c.status },
          { head: "Reason", cell: (c) => c.reason ?? "" },
          {
            head: "Message",
            cell: (c) => (
              <span className="text-xs">
                <TextWithLinks text={c.message ?? ""} />
              </span>
            ),
          },
        ]}
      />
    </div>
  );
}
