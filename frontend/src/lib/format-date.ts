/** Dates as the user's locale writes them; an unparseable value is shown as it came. */
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

const format = (formatter: Intl.DateTimeFormat, iso: string): string => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : formatter.format(date);
};

export const formatDate = (iso: string): string => format(dateFormat, iso);
export const formatDateTime = (iso: string): string => format(dateTimeFormat, iso);
