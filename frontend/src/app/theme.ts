import { createSystem, defaultConfig, defineConfig } from '@chakra-ui/react';
import { dialogAnatomy } from '@chakra-ui/react/anatomy';

// Light and dark come from Chakra's semantic tokens (bg, bg.panel, fg, fg.muted, border, ...);
// screens use those, never raw colours, so both modes stay right.
const config = defineConfig({
  globalCss: {
    'html, body, #root': { minHeight: '100%' },
  },
  theme: {
    recipes: {
      // Chakra's solid hover (the solid colour at 90%, lighter over white) left white text at
      // 4.31:1 on blue; hovered or expanded, a solid button is that colour darkened instead, so its
      // contrast only rises (WCAG AA 4.5:1) and every palette still shows the hover.
      button: {
        variants: {
          variant: {
            solid: {
              _hover: { bg: 'color-mix(in srgb, {colors.colorPalette.solid} 85%, black)' },
              _expanded: { bg: 'color-mix(in srgb, {colors.colorPalette.solid} 85%, black)' },
            },
          },
        },
      },
    },
    slotRecipes: {
      // Toasts show in the bottom corner (lib/toaster): a dialog keeps 4rem more below it, so with
      // its own margin (3.75rem) its footer buttons (Generate Accounts, Done) stay above a toast.
      dialog: { slots: dialogAnatomy.keys(), base: { positioner: { paddingBottom: '16' } } },
    },
    semanticTokens: {
      colors: {
        // Chakra's status text in light mode (red.500, orange.600, green.600) reads at 3.3-3.8:1
        // on white; a darker shade passes WCAG AA (4.5:1), e.g. 'Last tested ...: failed'.
        fg: {
          error: { value: { _light: '{colors.red.700}', _dark: '{colors.red.400}' } },
          warning: { value: { _light: '{colors.orange.700}', _dark: '{colors.orange.300}' } },
          success: { value: { _light: '{colors.green.700}', _dark: '{colors.green.300}' } },
        },
        // Chakra's solid green and orange (600) under their white text read at 3.3:1 and 3.6:1 (and
        // in dark mode orange carries black text); one shade darker with white text passes WCAG AA
        // (4.5:1) for buttons, badges and toasts alike.
        green: {
          solid: { value: { _light: '{colors.green.700}', _dark: '{colors.green.700}' } },
          contrast: { value: { _light: 'white', _dark: 'white' } },
        },
        orange: {
          solid: { value: { _light: '{colors.orange.700}', _dark: '{colors.orange.700}' } },
          contrast: { value: { _light: 'white', _dark: 'white' } },
        },
      },
    },
    tokens: {
      fonts: {
        heading: { value: "Inter, ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" },
        body: { value: "Inter, ui-sans-serif, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" },
      },
    },
  },
});

export const system = createSystem(defaultConfig, config);
