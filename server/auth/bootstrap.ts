import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInitialUsers, type Role } from "../store/users";
import { generatePassword, hashPassword } from "./password";

export type SeededAccount = { username: string; password: string; role: Role; generated: boolean };

export type BootstrapResult = {
  /** Accounts created now; empty when users already existed. Passwords are never shown again. */
  created: SeededAccount[];
  adminPasswordFile: string | null;
  demoCredentialsFile: string | null;
};

async function writeSecret(file: string, contents: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, contents, { mode: 0o600 });
  // `mode` applies only when the file is created; one left by an earlier database keeps its own.
  await chmod(file, 0o600);
}

/**
 * On a database with no users, creates `admin` (FLEETSKEW_ADMIN_PASSWORD or a generated password
 * written to <dataDir>/initial-admin-password) and, in demo mode, a `technician` and an `approver`,
 * with all three written to <dataDir>/demo-credentials.json. Does nothing when users exist.
 */
export async function ensureInitialAccounts(options: {
  dataDir: string;
  adminPassword: string | undefined;
  demo: boolean;
}): Promise<BootstrapResult> {
  const adminPasswordFile = path.join(options.dataDir, "initial-admin-password");
  const demoCredentialsFile = path.join(options.dataDir, "demo-credentials.json");
  const accounts: SeededAccount[] = [
    { username: "admin", role: "admin", password: options.adminPassword ?? generatePassword(), generated: !options.adminPassword },
  ];
  if (options.demo) {
    accounts.push(
      { username: "technician", role: "technician", password: generatePassword(), generated: true },
      { username: "approver", role: "approver", password: generatePassword(), generated: true },
    );
  }
  const admin = accounts[0]!;
  const hashed = await Promise.all(
    accounts.map(async (a) => ({ username: a.username, role: a.role, passwordHash: await hashPassword(a.password) })),
  );
  const created = await createInitialUsers(
    hashed,
    { actor: null, details: { reason: options.demo ? "first start (demo)" : "first start" } },
    async () => {
      if (admin.generated) await writeSecret(adminPasswordFile, `${admin.password}\n`);
      if (options.demo) {
        const credentials = Object.fromEntries(accounts.map((a) => [a.role, { username: a.username, password: a.password }]));
        await writeSecret(demoCredentialsFile, `${JSON.stringify(credentials, null, 2)}\n`);
      }
    },
  );
  if (!created) return { created: [], adminPasswordFile: null, demoCredentialsFile: null };
  return {
    created: accounts,
    adminPasswordFile: admin.generated ? adminPasswordFile : null,
    demoCredentialsFile: options.demo ? demoCredentialsFile : null,
  };
}
