import { createSystem, defaultConfig, defineConfig } from '@chakra-ui/react';

// Light and dark come from Chakra's semantic tokens (bg, bg.panel, fg, fg.muted, border, ...);
// screens use those, never raw colours, so both modes stay right.
const config = defineConfig({
  globalCss: {
    'html, body, #root': { minHeight: '100%' },
  },
  theme: {
    tokens: {
      fonts: {
        heading: { value: "Inter, ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" },
        body: { value: "Inter, ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" },
      },
    },
  },
});

export const system = createSystem(defaultConfig, config);
