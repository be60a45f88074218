const units = ['B', 'KB', 'MB', 'GB'] as const;
const number = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

/** 1536 -> "1.5 KB" (powers of 1024, as file managers show sizes). */
export function formatFileSize(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${number.format(value)} ${units[unit]}`;
}
