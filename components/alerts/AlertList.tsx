import Link from "next/link";
import type { AlertmanagerState, FleetAlertList } from "@/server/alerts/contract";
import { Alert, Card, Section, Table } from "../ui";

type FleetAlert = FleetAlertList["alerts"][number];
type AmAlert = Extract<AlertmanagerState, { status: "ok" }>["alerts"][number];
type Silence = Extract<AlertmanagerState, { status: "ok" }>["silences"][number];

const SEVERITY: Record<string, string> = {
  critical: "bg-danger/10 text-danger",
  warning: "bg-warn/10 text-warn",
  info: "bg-muted/10 text-muted",
};

function SeverityBadge({ severity }: { severity: string }) {
  return <span className={`inline-flex rounded px-2 py-0.5 text-xs font-medium ${SEVERITY[severity] ?? SEVERITY.info}`}>{severity}</span>;
}

const labelText = (labels: Record<string, string>, leave: string[]) =>
  Object.entries(labels)
    .filter(([k, v]) => v && !leave.includes(k))
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");

/** The alerts Fleetskew's rules would raise now, one row each. */
function FleetskewAlerts({ alerts }: { alerts: FleetAlert[] }) {
  if (!alerts.length) return <Alert tone="ok">Nothing needs action: Fleetskew would raise no alert now.</Alert>;
  return (
    <Table
      caption="Alerts Fleetskew would raise"
      rows={alerts}
      rowKey={(a, i) => `${a.alert}:${a.cluster ?? ""}:${i}`}
      rowProps={(a) => ({ "data-alert": a.alert, "data-cluster": a.cluster ?? "" })}
      columns={[
        { head: "Alert", cell: (a) => <span className="font-mono text-xs">{a.alert}</span> },
        { head: "Severity", cell: (a) => <SeverityBadge severity={a.severity} /> },
        {
          head: "Cluster",
          cell: (a) =>
            a.cluster ? (
              <Link className="text-accent hover:underline" href={`/clusters/${encodeURIComponent(a.cluster)}`}>
                {a.cluster}
              </Link>
            ) : (
              "—"
            ),
        },
        {
          head: "What and what to do",
          cell: (a) => (
            <div className="max-w-3xl">
              <p className="font-medium">{a.summary}</p>
              <p className="mt-1 text-muted">{a.description}</p>
              <p className="mt-1 text-xs text-muted">{labelText(a.labels, ["alertname", "severity", "cluster"])}</p>
            </div>
          ),
        },
        {
          head: "Runbook",
          cell: (a) => (
            <a className="text-accent hover:underline" href={a.runbookUrl} rel="noreferrer">
              runbook
            </a>
          ),
        },
      ]}
    />
  );
}

function AlertmanagerAlerts({ alerts }: { alerts: AmAlert[] }) {
  if (!alerts.length) return <p className="text-sm text-muted">No Fleetskew or OpenShift upgrade alert is active there.</p>;
  return (
    <Table
      caption="Active alerts in Alertmanager"
      rows={alerts}
      rowKey={(a) => a.fingerprint}
      rowProps={(a) => ({ "data-am-alert": a.labels.alertname ?? "" })}
      columns={[
        { head: "Alert", cell: (a) => <span className="font-mono text-xs">{a.labels.alertname}</span> },
        { head: "Severity", cell: (a) => <SeverityBadge severity={a.labels.severity ?? "info"} /> },
        { head: "State", cell: (a) => (a.silencedBy.length ? `silenced (${a.silencedBy.join(", ")})` : a.state) },
        { head: "Since", cell: (a) => <time dateTime={a.startsAt}>{a.startsAt.replace("T", " ").slice(0, 16)}</time> },
        { head: "Labels", cell: (a) => <span className="text-xs">{labelText(a.labels, ["alertname", "severity"])}</span> },
      ]}
    />
  );
}

function Silences({ silences }: { silences: Silence[] }) {
  if (!silences.length) return <p className="text-sm text-muted">No silence is active or pending.</p>;
  return (
    <Table
      caption="Silences"
      rows={silences}
      rowKey={(s) => s.id}
      columns={[
        {
          head: "Matchers",
          cell: (s) => (
            <span className="font-mono text-xs">
              {s.matchers.map((m) => `${m.name}${m.isEqual ? "" : "!"}${m.isRegex ? "=~" : "="}"${m.value}"`).join(", ")}
            </span>
          ),
        },
        { head: "State", cell: (s) => s.state },
        { head: "Until", cell: (s) => <time dateTime={s.endsAt}>{s.endsAt.replace("T", " ").slice(0, 16)}</time> },
        { head: "By", cell: (s) => s.createdBy },
        { head: "Comment", cell: (s) => s.comment },
      ]}
    />
  );
}

function AlertmanagerPart({ state }: { state: AlertmanagerState }) {
  if (state.status === "not-configured")
    return (
      <Section title="Alertmanager">
        <p className="text-sm text-muted">
          Set <code>FLEETSKEW_ALERTMANAGER_URL</code> to show the active alerts and silences of the Alertmanager your team routes these
          alerts through (on an ACM hub, the hub&apos;s).
        </p>
      </Section>
    );
  if (state.status === "error")
    return (
      <Section title="Alertmanager">
        <Alert tone="error">
          The configured Alertmanager could not be read: {state.error}. Fleetskew&apos;s own list above does not depend on it.
        </Alert>
      </Section>
    );
  return (
    <>
      <Section
        title="Active in Alertmanager"
        description="The configured Alertmanager: Fleetskew's alerts and the OpenShift upgrade alerts beside them."
      >
        <AlertmanagerAlerts alerts={state.alerts} />
      </Section>
      <Section title="Silences" description={state.truncated ? "The first ones only." : undefined}>
        <Silences silences={state.silences} />
      </Section>
    </>
  );
}

/** The alert list: Fleetskew's own evaluation first, then what the configured Alertmanager says. */
export function AlertList({ list }: { list: FleetAlertList }) {
  return (
    <div className="grid gap-6">
      <Card className="p-4">
        <h2 className="font-semibold">
          Fleetskew would raise {list.alerts.length} alert{list.alerts.length === 1 ? "" : "s"}
        </h2>
        <p className="mb-3 text-xs text-muted">
          The same conditions as the Prometheus rules in deploy/monitoring/, evaluated from the latest sweeps at{" "}
          <time dateTime={list.generatedAt}>{list.generatedAt.replace("T", " ").slice(0, 19)} UTC</time>; Prometheus also waits out each
          rule&apos;s <code>for:</code> before it fires.
        </p>
        <FleetskewAlerts alerts={list.alerts} />
      </Card>
      <AlertmanagerPart state={list.alertmanager} />
    </div>
  );
}
