import { randomBytes } from "node:crypto";
import type { PolicyRule } from "./rbac";

/** The hub's users: an administrator, and the two service accounts a Fleetskew registration uses (docs/simulator.md, hub mode). */
export const HUB_ADMIN_USER = "system:admin";
export const HUB_READER_USER = "system:serviceaccount:fleetskew:fleetskew-hub-reader";
export const HUB_PROXY_USER = "system:serviceaccount:fleetskew:fleetskew-hub-proxy";

const READ = ["get", "list", "watch"];
const WRITE = ["create", "update", "patch", "delete"];
/** The reader service account's hub rights: what a fleet source needs (docs/simulator.md, hub mode). */
export const READER_RULES: PolicyRule[] = [
  {
    apiGroups: ["cluster.open-cluster-management.io"],
    resources: ["managedclusters", "managedclustersets", "managedclustersetbindings"],
    verbs: READ,
  },
  { apiGroups: ["internal.open-cluster-management.io"], resources: ["managedclusterinfos"], verbs: READ },
  { apiGroups: ["addon.open-cluster-management.io"], resources: ["managedclusteraddons"], verbs: READ },
  { apiGroups: ["multicluster.openshift.io"], resources: ["multiclusterengines"], verbs: READ },
  { apiGroups: ["rbac.open-cluster-management.io"], resources: ["clusterpermissions"], verbs: [...READ, ...WRITE] },
  { apiGroups: ["authentication.open-cluster-management.io"], resources: ["managedserviceaccounts"], verbs: [...READ, ...WRITE] },
  { apiGroups: [""], resources: ["secrets"], verbs: READ },
];

export const serviceAccountGroups = (user: string) => {
  const ns = user.split(":")[2];
  return ["system:serviceaccounts", `system:serviceaccounts:${ns}`, "system:authenticated"];
};

/** A service-account token in the shape OpenShift gives them. */
export const newToken = () => `sha256~${randomBytes(32).toString("base64url")}`;
