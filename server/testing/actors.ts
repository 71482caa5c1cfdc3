import { actorFor, type Actor } from "../auth/actor";
import type { Grant } from "../domain/grants";
import { createUser, type Role } from "../store/users";

/** A user of that role (over the whole fleet, or over the grants given), created straight in the database, acting from localhost. */
export async function testActor(username: string, role: Role, grants?: Grant[]): Promise<Actor> {
  return actorFor(await createUser({ username, role, passwordHash: "scrypt$test", grants }, { actor: null }), "127.0.0.1");
}
