/**
 * deploy/hub: Fleetskew's identities on an ACM hub, their RBAC and the admission policy that holds
 * the reader to the ClusterPermission Fleetskew writes. Rendered with `kubectl kustomize`, checked
 * against the Kubernetes schemas, and the policy's CEL evaluated (with @bufbuild/cel) against what
 * server/kube/hub.ts creates and against what a stolen reader token would try.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { isCelError, run, type CelInput } from "@bufbuild/cel";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { clusterPermission, managedClusterRules, managedServiceAccount } from "../server/kube/hub";
import { permissionSubject } from "../server/domain/hubEligibility";
import { schemaProblems } from "./schemas";

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: any;
  rules?: any[];
  subjects?: any[];
};

const kubectl = (() => {
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const render = (): Obj[] =>
  parseAllDocuments(execFileSync("kubectl", ["kustomize", path.resolve(__dirname, "hub")], { encoding: "utf8" })).map(
    (d) => d.toJS() as Obj,
  );

const PROXY_USER = "cluster:hub:system:serviceaccount:fleetskew:fleetskew-hub-proxy";
const READER = "system:serviceaccount:fleetskew:fleetskew-hub-reader";

describe.skipIf(!kubectl)("kubectl kustomize deploy/hub", () => {
  const objects = kubectl ? render() : [];
  const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name)!;
  const policy = find("ValidatingAdmissionPolicy", "fleetskew-hub-reader-writes");
  const accountPolicy = find("ValidatingAdmissionPolicy", "fleetskew-hub-reader-service-accounts");

  /** The policy's verdict on a CREATE by `username`: null when admitted, else the first refusal's message. */
  function admission(object: { kind: string }, username = READER): string | null {
    const judge = object.kind === "ClusterPermission" ? policy : accountPolicy;
    const request = { userInfo: { username }, operation: "CREATE" };
    for (const condition of judge.spec.matchConditions) {
      const matched = run(condition.expression, { request } as Record<string, CelInput>);
      if (isCelError(matched)) throw new Error(`${condition.name}: ${String(matched)}`);
      if (matched !== true) return null;
    }
    const variables: Record<string, unknown> = {};
    for (const v of judge.spec.variables ?? []) {
      const value = run(v.expression, { object, request, variables } as Record<string, CelInput>);
      if (isCelError(value)) throw new Error(`variable ${v.name}: ${String(value)}`);
      variables[v.name] = value;
    }
    for (const validation of judge.spec.validations) {
      const ok = run(validation.expression, { object, request, variables } as Record<string, CelInput>);
      if (isCelError(ok)) throw new Error(`${validation.expression}: ${String(ok)}`);
      if (ok !== true) return validation.message;
    }
    return null;
  }

  const ours = (cluster = "prod-east", subject = permissionSubject(cluster, { mode: "impersonation", user: PROXY_USER })) =>
    JSON.parse(JSON.stringify(clusterPermission(cluster, subject))) as any;

  it("renders objects valid against the Kubernetes schemas, with no unknown fields", async () => {
    const problems = (await Promise.all(objects.map((o) => schemaProblems(o as unknown as Record<string, unknown>)))).flat();
    expect(problems).toEqual([]);
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      "ClusterRole/fleetskew-hub-reader",
      "ClusterRole/fleetskew-hub-service-accounts",
      "ClusterRoleBinding/fleetskew-hub-reader",
      "ClusterRoleBinding/fleetskew-hub-service-accounts",
      "ServiceAccount/fleetskew-hub-proxy",
      "ServiceAccount/fleetskew-hub-reader",
      "ValidatingAdmissionPolicy/fleetskew-hub-reader-service-accounts",
      "ValidatingAdmissionPolicy/fleetskew-hub-reader-writes",
      "ValidatingAdmissionPolicyBinding/fleetskew-hub-reader-service-accounts",
      "ValidatingAdmissionPolicyBinding/fleetskew-hub-reader-writes",
    ]);
    for (const p of [policy, accountPolicy]) {
      expect(find("ValidatingAdmissionPolicyBinding", p.metadata.name).spec).toEqual({
        policyName: p.metadata.name,
        validationActions: ["Deny"],
      });
      expect(p.spec.failurePolicy).toBe("Fail");
      expect(p.spec.matchConditions[0].expression).toContain(`'${READER}'`);
    }
    // Each policy matches the one kind it judges.
    expect(policy.spec.matchConstraints.resourceRules.map((r: { resources: string[] }) => r.resources)).toEqual([["clusterpermissions"]]);
    expect(accountPolicy.spec.matchConstraints.resourceRules.map((r: { resources: string[] }) => r.resources)).toEqual([
      ["managedserviceaccounts"],
    ]);
  });

  it("grants no Secret but Fleetskew's token Secrets, by name, and no wildcard; deletes only Fleetskew's objects", () => {
    const rules = objects.filter((o) => o.kind === "ClusterRole").flatMap((o) => o.rules!);
    for (const rule of rules) {
      for (const field of ["apiGroups", "resources", "verbs"]) expect(rule[field]).not.toContain("*");
      if (rule.resources.includes("secrets")) expect(rule.resourceNames).toEqual(["fleetskew"]);
      if (rule.verbs.some((v: string) => ["delete", "update", "patch"].includes(v))) expect(rule.resourceNames).toEqual(["fleetskew"]);
    }
    const secretVerbs = rules.filter((r) => r.resources.includes("secrets")).flatMap((r) => r.verbs);
    expect(secretVerbs.sort()).toEqual(["get", "list"]);
    // The bindings name the reader the policy's matchCondition names.
    for (const binding of objects.filter((o) => o.kind === "ClusterRoleBinding"))
      expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "fleetskew-hub-reader", namespace: "fleetskew" }]);
  });

  it("lists exactly the grants Fleetskew's ClusterPermission holds (server/kube/hub.ts managedClusterRules)", () => {
    const expected = new Set<string>();
    for (const r of managedClusterRules())
      for (const g of r.apiGroups)
        for (const res of r.resources)
          for (const v of r.verbs) for (const n of r.resourceNames?.length ? r.resourceNames : ["*"]) expected.add(`${g}/${res}/${v}/${n}`);
    const listed = run(policy.spec.variables.find((v: { name: string }) => v.name === "allowedGrants").expression);
    expect([...(listed as Iterable<string>)].sort()).toEqual([...expected].sort());
  });

  it("admits the ClusterPermissions and the ManagedServiceAccount Fleetskew creates, on every access route", () => {
    expect(admission(ours())).toBeNull();
    expect(admission(ours("local-cluster", permissionSubject("local-cluster", { mode: "impersonation", user: PROXY_USER })))).toBeNull();
    expect(
      admission(ours("old-hub-cluster", permissionSubject("old-hub-cluster", { mode: "managed-service-account", account: "fleetskew" }))),
    ).toBeNull();
    expect(admission(JSON.parse(JSON.stringify(managedServiceAccount("old-hub-cluster"))))).toBeNull();
  });

  it("refuses what a stolen reader token would create: more rights, another role or subject, other names", () => {
    const variants: [string, (cp: any) => void][] = [
      [
        "cluster-admin by roleRef",
        (cp) =>
          (cp.spec.clusterRoleBinding.roleRef = { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" }),
      ],
      ["Secrets read", (cp) => cp.spec.clusterRole.rules.push({ apiGroups: [""], resources: ["secrets"], verbs: ["get", "list"] })],
      ["every verb", (cp) => (cp.spec.clusterRole.rules[0].verbs = ["*"])],
      ["every resource", (cp) => (cp.spec.clusterRole.rules[0].resources = ["*"])],
      [
        "a named grant without its name",
        (cp) =>
          delete cp.spec.clusterRole.rules.find((r: any) => r.resources[0] === "machineconfigurations" && r.verbs.includes("patch"))
            .resourceNames,
      ],
      ["a non-resource URL", (cp) => cp.spec.clusterRole.rules.push({ nonResourceURLs: ["/metrics"], verbs: ["get"] })],
      ["impersonation", (cp) => cp.spec.clusterRole.rules.push({ apiGroups: [""], resources: ["users"], verbs: ["impersonate"] })],
      [
        "another subject",
        (cp) => (cp.spec.clusterRoleBinding.subject = { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "mallory" }),
      ],
      [
        "a group subject",
        (cp) =>
          (cp.spec.clusterRoleBinding.subject = { apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "system:authenticated" }),
      ],
      [
        "another account",
        (cp) =>
          (cp.spec.clusterRoleBinding.subject = {
            apiGroup: "authentication.open-cluster-management.io",
            kind: "ManagedServiceAccount",
            name: "other",
          }),
      ],
      [
        "extra subjects",
        (cp) => (cp.spec.clusterRoleBinding.subjects = [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "mallory" }]),
      ],
      ["a binding over an existing one", (cp) => (cp.spec.clusterRoleBinding.name = "cluster-admins")],
      ["more bindings", (cp) => (cp.spec.clusterRoleBindings = [{ name: "x", subject: { kind: "User", name: "mallory" } }])],
      [
        "namespaced roles",
        (cp) => (cp.spec.roles = [{ namespace: "openshift-config", rules: [{ apiGroups: [""], resources: ["secrets"], verbs: ["get"] }] }]),
      ],
      ["another name", (cp) => (cp.metadata.name = "admin")],
    ];
    for (const [what, change] of variants) {
      const cp = ours();
      change(cp);
      expect(admission(cp), what).not.toBeNull();
    }
    const msa = JSON.parse(JSON.stringify(managedServiceAccount("c1")));
    msa.metadata.name = "admin";
    expect(admission(msa)).not.toBeNull();
    // A narrower grant than Fleetskew's (one name of a list it may read) is fine.
    const narrower = ours();
    narrower.spec.clusterRole.rules.find((r: any) => r.resources[0] === "nodes").resourceNames = ["worker-0"];
    expect(admission(narrower)).toBeNull();
  });

  it("leaves everyone else on the hub alone", () => {
    const cp = ours();
    cp.spec.clusterRoleBinding.roleRef = { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" };
    expect(admission(cp, "kube:admin")).toBeNull();
  });
});
