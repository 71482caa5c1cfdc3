import type { ConnectionReport } from "@/server/clusters/contract";

function Check({ ok, label, detail }: { ok: boolean | null; label: string; detail?: string | null }) {
  const mark = ok === null ? "–" : ok ? "✓" : "✗";
  const tone = ok === null ? "text-muted" : ok ? "text-ok" : "text-danger";
  return (
    <li className="flex gap-2">
      <span aria-hidden className={`w-4 font-bold ${tone}`}>
        {mark}
      </span>
      <span>
        <span className="font-medium">{label}</span>
        {detail ? <span className="text-muted"> — {detail}</span> : null}
        <span className="sr-only">{ok === null ? " (not checked)" : ok ? " (yes)" : " (no)"}</span>
      </span>
    </li>
  );
}

/** What a connection test found, in the order an admin would fix things. */
export function ConnectionReportView({ report }: { report: ConnectionReport }) {
  const missing = report.served.filter((s) => !s.served);
  return (
    <div className="flex flex-col gap-3 text-sm" aria-label="Connection test result" role="region">
      <ul className="flex flex-col gap-1">
        <Check
          ok={report.reachable}
          label="Reachable"
          detail={report.reachable ? report.kubernetesVersion && `Kubernetes ${report.kubernetesVersion}` : report.problem}
        />
        <Check
          ok={report.reachable ? report.authenticated : null}
          label="Credentials accepted"
          detail={report.reachable && !report.authenticated ? report.problem : null}
        />
        <Check
          ok={report.authenticated ? report.openshiftVersion !== null : null}
          label={report.openshiftVersion ? `OpenShift ${report.openshiftVersion}` : "OpenShift version"}
          detail={
            report.platform ? `platform ${report.platform}` : report.authenticated && !report.openshiftVersion ? report.problem : null
          }
        />
        <Check
          ok={report.authenticated ? report.forbidden.length === 0 : null}
          label="Read permissions"
          detail={report.forbidden.length ? `${report.forbidden.length} missing` : null}
        />
      </ul>
      {report.forbidden.length > 0 ? (
        <div>
          <p className="font-medium">Missing permissions (grant the read-only ClusterRole in docs/rbac.md):</p>
          <ul className="mt-1 list-disc pl-5">
            {report.forbidden.map((f) => (
              <li key={`${f.verb}/${f.resource}`}>
                <code>
                  {f.verb} {f.resource}
                  {f.group ? `.${f.group}` : ""}
                </code>{" "}
                {f.namespace ? `in ${f.namespace}` : "cluster-wide"}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {report.served.length > 0 ? (
        <details open={missing.length > 0}>
          <summary className="cursor-pointer font-medium">
            Kinds served: {report.served.length - missing.length} of {report.served.length}
            {missing.length ? ` (not on this version: ${missing.map((m) => m.kind).join(", ")})` : ""}
          </summary>
          <table className="mt-2 w-full text-left">
            <caption className="sr-only">Kinds Fleetskew reads and whether this cluster serves them</caption>
            <thead className="text-muted">
              <tr>
                <th scope="col" className="py-1 pr-4 font-medium">
                  Kind
                </th>
                <th scope="col" className="py-1 pr-4 font-medium">
                  API version
                </th>
                <th scope="col" className="py-1 pr-4 font-medium">
                  Served
                </th>
              </tr>
            </thead>
            <tbody>
              {report.served.map((s) => (
                <tr key={s.kind} className="border-t border-line">
                  <td className="py-1 pr-4">{s.kind}</td>
                  <td className="py-1 pr-4 font-mono text-xs">{s.groupVersion}</td>
                  <td className={`py-1 ${s.served ? "text-ok" : "text-muted"}`}>{s.served ? "yes" : "not on this version"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      ) : null}
    </div>
  );
}
