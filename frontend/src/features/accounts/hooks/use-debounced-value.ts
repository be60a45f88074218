import { useCallback, useEffect, useState } from 'react';

/**
 * The value, once it has stopped changing for `delayMs`, and a `flush` that applies the value as
 * it is now: another control changed at the same moment (a filter, the sort) takes the typed
 * term with it, so the view never shows the new filter over the old term and then moves again.
 */
export function useDebouncedValue<T>(value: T, delayMs: number): [T, () => void] {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setDebounced(value), delayMs);
    return () => window.clearTimeout(timer);
  }, [value, delayMs]);
  const flush = useCallback(() => setDebounced(value), [value]);
  return [debounced, flush];
}
