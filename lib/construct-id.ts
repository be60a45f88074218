/** 'mail-worker' -> 'MailWorker': construct ids derived from the names in shared/routes.ts. */
export function constructId(...parts: string[]): string {
  return parts
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter((word) => word !== '')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
}
