/** Data a server component read while rendering a page, with the time it read it (see useSeededQuery). */
export type Seed<T> = { data: T; at: number };

export const seed = <T>(data: T): Seed<T> => ({ data, at: Date.now() });
