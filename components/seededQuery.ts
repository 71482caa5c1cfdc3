"use client";

import { useQuery, useQueryClient, type DefinedUseQueryResult, type QueryKey, type UseQueryOptions } from "@tanstack/react-query";
import { useState } from "react";
import type { Seed } from "./seed";

/**
 * A query whose first data comes from the server-rendered page. `initialData` alone is ignored
 * once the cache holds the key, so a page visited earlier in the session would show what it showed
 * then (an empty fleet before the first registration) until the next refetch. Here the server's
 * data replaces the cached entry whenever it is newer, as TanStack's hydration does.
 */
export function useSeededQuery<T, K extends QueryKey>(
  options: Omit<UseQueryOptions<T, Error, T, K>, "initialData" | "initialDataUpdatedAt"> & { queryKey: K },
  initial: Seed<T>,
) {
  const client = useQueryClient();
  useState(() => {
    const key: QueryKey = options.queryKey;
    const state = client.getQueryState(key);
    if (!state || state.dataUpdatedAt < initial.at) client.setQueryData<T>(key, initial.data, { updatedAt: initial.at });
    return true;
  });
  // Always defined: initialData is given (TypeScript cannot see that through the generic T).
  return useQuery({ ...options, initialData: initial.data, initialDataUpdatedAt: initial.at }) as DefinedUseQueryResult<T, Error>;
}
