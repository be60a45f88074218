import { useEffect, useState } from 'react';
import { appConfigSchema, type AppConfig } from '@shared/app-config';

let configPromise: Promise<AppConfig> | undefined;

/**
 * The runtime configuration (/config.json, written at deploy time or by `npm start`). Fetched
 * once per page load; a failed fetch is not cached, so a retry fetches again.
 */
export function loadConfig(): Promise<AppConfig> {
  configPromise ??= fetchConfig().catch((error: unknown) => {
    configPromise = undefined;
    throw error;
  });
  return configPromise;
}

async function fetchConfig(): Promise<AppConfig> {
  const response = await fetch('/config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`${response.status}: ${(await response.text()) || response.statusText}`);
  return appConfigSchema.parse(await response.json());
}

/** The config for a component (undefined until loaded, or when it cannot be loaded). */
export function useAppConfig(): AppConfig | undefined {
  const [config, setConfig] = useState<AppConfig>();
  useEffect(() => {
    let active = true;
    loadConfig().then(
      (loaded) => active && setConfig(loaded),
      () => undefined,
    );
    return () => {
      active = false;
    };
  }, []);
  return config;
}
