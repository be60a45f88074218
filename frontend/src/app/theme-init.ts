/** Where next-themes keeps the choice, and the theme before any choice (spec: light). */
export const THEME_STORAGE_KEY = 'theme';
export const DEFAULT_THEME = 'light';

/**
 * Puts the stored theme's class on <html> before React's first render, so a dark choice never
 * flashes light. (next-themes' own inline script only runs in server-rendered HTML.)
 */
export function applyStoredTheme(): void {
  let theme = DEFAULT_THEME;
  try {
    theme = window.localStorage.getItem(THEME_STORAGE_KEY) ?? DEFAULT_THEME;
  } catch {
    // Storage unavailable: the default applies.
  }
  if (theme === 'system') theme = window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  if (theme !== 'dark' && theme !== 'light') return;
  document.documentElement.classList.add(theme);
  document.documentElement.style.colorScheme = theme;
}
