import type { KubeObject } from "../../objectStore";
import { uidOf } from "../random";
import { iso, releaseDigest, type ClusterPlan } from "../plan";

type Obj = KubeObject & { spec: Record<string, unknown>; status: Record<string, unknown> };

/**
 * ClusterVersion: history newest first, each entry ending three hours after it began. Its Upgradeable
 * conditions are the CVO's verdict, folded in once the other objects are settled.
 */
export function clusterVersion({ p, current, minor, releases, template }: ClusterPlan): KubeObject[] {
  const cv = structuredClone(template("ClusterVersion")[0]!) as Obj;
  const entries = releases.map(({ version, at }, i) => ({
    state: "Completed",
    startedTime: iso(at),
    completionTime: iso(new Date(at.getTime() + 3 * 3_600_000)),
    version,
    image: releaseDigest(version),
    verified: i > 0,
    acceptedRisks: "",
  }));
  cv.metadata = { ...cv.metadata, uid: uidOf(`${p.name}/cv`) };
  cv.spec = {
    ...cv.spec,
    clusterID: uidOf(`${p.name}/id`),
    channel: `stable-4.${minor}`,
    desiredUpdate: { version: current, image: releaseDigest(current), force: false },
  };
  cv.status.history = entries.reverse();
  cv.status.desired = { version: current, image: releaseDigest(current), channels: [`stable-4.${minor}`, `fast-4.${minor}`] };
  cv.status.conditions = (cv.status.conditions as { type: string; message?: string }[]).map((c) =>
    c.type === "Available"
      ? { ...c, message: `Done applying ${current}` }
      : c.type === "Progressing"
        ? { ...c, message: `Cluster version is ${current}` }
        : c.type === "ReleaseAccepted"
          ? { ...c, message: `Payload loaded version="${current}" image="${releaseDigest(current)}" architecture="amd64"` }
          : c,
  );
  return [cv];
}
