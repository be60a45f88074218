import { ChakraProvider } from '@chakra-ui/react';
import { ThemeProvider } from 'next-themes';
import type { ReactNode } from 'react';
import { Toaster } from '../components/toaster';
import { system } from './theme';
import { DEFAULT_THEME, THEME_STORAGE_KEY } from './theme-init';

/**
 * App-wide providers. Chakra's provider and theme live here and nowhere else. TanStack Query
 * is provided by the signed-in app only (./query-provider), the one place that fetches data.
 */
export function AppProviders({ children }: { children: ReactNode }) {
  return (
    <ChakraProvider value={system}>
      {/* Chakra v3's dark mode follows the `dark` class that next-themes puts on <html>. */}
      <ThemeProvider
        attribute="class"
        defaultTheme={DEFAULT_THEME}
        enableSystem
        disableTransitionOnChange
        storageKey={THEME_STORAGE_KEY}
        // Its inline script cannot run in a client-rendered app (theme-init does that job); as a
        // data block React leaves it alone instead of warning about a <script> in a component.
        scriptProps={{ type: 'application/json' }}
      >
        {children}
        <Toaster />
      </ThemeProvider>
    </ChakraProvider>
  );
}
