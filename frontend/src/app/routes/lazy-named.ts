import { lazy, type ComponentType } from 'react';

/** React.lazy for a module's named export (pages use named exports, no default exports). */
export function lazyNamed<K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) {
  return lazy(async () => ({ default: (await load())[name] }));
}
