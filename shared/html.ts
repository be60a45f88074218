/** Escapes text for HTML element content and attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
