/**
 * Extra columns kept per account (issue 28 item 5): a CSV's columns beyond first name, last name
 * and e-mail (department, title, manager e-mail, phone, employee id, any other) become one map on
 * the account, `attributes: { department: 'Sales', ... }`, under normalised keys. The browser and
 * the server use these same rules, so the preview and the creation agree.
 *
 * Zod-free on purpose: the CSV reader (and the export worker) import it.
 */

/** Extra values one person may carry at most; a row with more is rejected with ATTRIBUTE_MESSAGES.tooMany. */
export const MAX_ATTRIBUTES = 25;
/** Characters of one value at most. */
export const ATTRIBUTE_VALUE_MAX = 256;
/** Characters of a normalised key at most (a longer header is cut). */
export const ATTRIBUTE_KEY_MAX = 40;

export type AccountAttributes = Record<string, string>;

/** The well-known columns: their key, what a header may say (as lower-case letters and digits), their label. */
const KNOWN: readonly { key: string; label: string; aliases: readonly string[] }[] = [
  { key: 'department', label: 'Department', aliases: ['department', 'dept', 'departmentname', 'division'] },
  { key: 'title', label: 'Title', aliases: ['title', 'jobtitle', 'position', 'role', 'jobrole'] },
  { key: 'managerEmail', label: 'Manager Email', aliases: ['manageremail', 'managermail', 'manageremailaddress', 'supervisoremail'] },
  { key: 'phone', label: 'Phone', aliases: ['phone', 'phonenumber', 'telephone', 'telephonenumber', 'tel', 'mobile', 'mobilephone', 'mobilenumber', 'cell', 'cellphone'] },
  { key: 'employeeId', label: 'Employee ID', aliases: ['employeeid', 'employeenumber', 'employeeno', 'empid', 'empno', 'staffid', 'staffnumber', 'id', 'personid'] },
];

/**
 * Columns never kept as attributes: the account's own generated values. A CSV's 'Password' column
 * must not end up stored in clear beside the encrypted password.
 */
const NEVER_KEPT = new Set(['password', 'username']);

/**
 * A header cell as an attribute key: a well-known column's key ('Job Title' -> 'title', 'Employee
 * ID' -> 'employeeId'), else the header in camelCase of its letters and digits ('Cost Center' ->
 * 'costCenter'), at most ATTRIBUTE_KEY_MAX characters. undefined: a header that names nothing
 * (blank, punctuation only) or a column never kept.
 */
export function attributeKey(header: string): string | undefined {
  const words = header
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    // 'employeeId' and 'EmployeeID' are two words, like 'employee id'.
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (!words.length) return undefined;
  const compact = words.join('');
  if (NEVER_KEPT.has(compact)) return undefined;
  const known = KNOWN.find((entry) => entry.aliases.includes(compact));
  if (known) return known.key;
  const camel = words.map((word, i) => (i === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join('');
  // A key starts with a letter (it is also a JSON name and an expression attribute name).
  const key = /^[a-z]/.test(camel) ? camel : `c${camel}`;
  return key.slice(0, ATTRIBUTE_KEY_MAX);
}

/** Whether `key` is shaped like a normalised key (what the API accepts as an attribute's name). */
export const isAttributeKey = (key: string): boolean => /^[a-z][a-zA-Z0-9]*$/.test(key) && key.length <= ATTRIBUTE_KEY_MAX;

/** The label shown for a key: the well-known column's, else its words ('costCenter' -> 'Cost Center'). */
export function attributeLabel(key: string): string {
  const known = KNOWN.find((entry) => entry.key === key);
  if (known) return known.label;
  const spaced = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2');
  return spaced[0]!.toUpperCase() + spaced.slice(1);
}

/** The well-known keys, in the order forms offer them. */
export const knownAttributeKeys: readonly string[] = KNOWN.map((entry) => entry.key);

export const ATTRIBUTE_MESSAGES = {
  tooMany: (count: number) => `At most ${MAX_ATTRIBUTES} extra columns per person (this row has ${count})`,
  tooLong: (key: string) => `${attributeLabel(key)} must be at most ${ATTRIBUTE_VALUE_MAX} characters`,
  control: (key: string) => `${attributeLabel(key)} cannot contain line breaks or control characters`,
  badKey: (name: string) => `"${name.slice(0, 60)}" is not a column name (letters and digits)`,
} as const;

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/**
 * One person's extra values checked: trimmed, empty ones dropped, names normalised (attributeKey;
 * the first of two columns with one key wins), then the caps. Answers the map to keep, or the
 * problems (a row with problems is rejected, never cut silently).
 */
export function checkAttributes(input: Readonly<Record<string, string>> | undefined): { attributes: AccountAttributes; problems: string[] } {
  const attributes: AccountAttributes = {};
  const problems: string[] = [];
  if (!input) return { attributes, problems };
  for (const [name, raw] of Object.entries(input)) {
    const value = typeof raw === 'string' ? raw.trim() : '';
    if (!value) continue;
    // Header names and keys alike: a key is its own normal form ('costCenter' stays), a header becomes one ('Job Title' -> 'title').
    const key = attributeKey(name);
    if (!key) {
      if (NEVER_KEPT.has(name.toLowerCase().replace(/[^a-z0-9]/g, ''))) continue;
      problems.push(ATTRIBUTE_MESSAGES.badKey(name));
      continue;
    }
    if (key in attributes) continue;
    if (value.length > ATTRIBUTE_VALUE_MAX) problems.push(ATTRIBUTE_MESSAGES.tooLong(key));
    else if (CONTROL_CHARACTERS.test(value)) problems.push(ATTRIBUTE_MESSAGES.control(key));
    attributes[key] = value;
  }
  const count = Object.keys(attributes).length;
  if (count > MAX_ATTRIBUTES) problems.unshift(ATTRIBUTE_MESSAGES.tooMany(count));
  return { attributes, problems };
}

/** The keys of several people's attributes, sorted as exports and tables show them: well-known first, then by name. */
export function orderedAttributeKeys(keys: Iterable<string>): string[] {
  const known = new Map(knownAttributeKeys.map((key, i) => [key, i]));
  return [...new Set(keys)].sort((a, b) => {
    const ka = known.get(a);
    const kb = known.get(b);
    if (ka !== undefined || kb !== undefined) return (ka ?? Infinity) - (kb ?? Infinity);
    return a < b ? -1 : a > b ? 1 : 0;
  });
}
