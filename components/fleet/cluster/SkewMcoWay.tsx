import type { ClusterDetail } from "@/server/fleet/contract";
import { Section, TextWithLinks } from "../../ui";

type Assessment = NonNullable<NonNullable<ClusterDetail["skew"]>["assessment"]>;

/** How the Machine Config Operator decides this cluster's boot-image skew: mode, value compared, limit, and its message. */
export function SkewMcoWay({ a }: { a: Assessment }) {
  return (
    <Section
      title="Skew, the MCO's way"
      description={
        `How the Machine Config Operator of ${a.release} decides (${a.enforcement.source === "cluster" ? "read from the cluster" : "predicted"})` +
        (a.mcoRelease ? `, by the rules of the ${a.mcoRelease} MCO.` : ".")
      }
    >
      <dl className="grid gap-2 text-sm sm:grid-cols-3">
        <div>
          <dt className="text-muted">Effective mode</dt>
          <dd className="font-medium">{a.enforcement.mode}</dd>
          <dd className="text-xs text-muted">{a.enforcement.basis}</dd>
        </div>
        <div>
          <dt className="text-muted">Value compared</dt>
          <dd className="font-medium">{a.enforcement.value?.ocpVersion ?? a.enforcement.value?.rhcosVersion ?? "—"}</dd>
          {a.enforcement.installVersionFallback ? <dd className="text-xs text-warn">the install version, assumed by the MCO</dd> : null}
        </div>
        <div>
          <dt className="text-muted">Limit at {a.release}</dt>
          <dd className="font-medium">{a.limits ? `OCP ${a.limits.ocpVersion} / RHEL ${a.limits.rhelVersion}` : "not enforced"}</dd>
        </div>
      </dl>
      {a.block ? (
        <div className="mt-3 rounded-md border-l-4 border-danger bg-canvas p-3 text-sm">
          <p className="font-medium">
            Upgradeable=False, reason {a.block.reason} {a.block.source === "predicted" ? `(predicted once at ${a.release})` : ""}
          </p>
          <p className="mt-1">
            <TextWithLinks text={a.block.message} />
          </p>
        </div>
      ) : null}
      {a.notes.map((n) => (
        <p key={n} className="mt-2 text-xs text-muted">
          <TextWithLinks text={n} />
        </p>
      ))}
    </Section>
  );
}
