import type { Actor } from "../auth/actor";
import { createUser, type Role } from "../store/users";

/** A user of that role, created straight in the database (no password to sign in with), acting from localhost. */
export async function testActor(username: string, role: Role): Promise<Actor> {
  return { user: await createUser({ username, role, passwordHash: "scrypt$test" }, { actor: null }), ip: "127.0.0.1" };
}
