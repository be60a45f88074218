import { baseUsername } from '../../shared/generation/username';

/** A row's username request: its base and how many rows before it in the file share that base. */
export interface UsernameSlot {
  base: string;
  /** 0 for the first row with this base in the file, 1 for the second ... */
  k: number;
}

/** Bases and occurrence indexes for a file's rows, in order (pure, O(n)). */
export function usernameSlots(people: readonly { firstName: string; lastName: string }[], year: number): UsernameSlot[] {
  return [...withUsernameSlots(people, year)].map(({ base, k }) => ({ base, k }));
}

/** The same, each row with its slot, one at a time (nothing per row kept but the count per base). */
export function* withUsernameSlots<T extends { firstName: string; lastName: string }>(people: Iterable<T>, year: number): Generator<T & UsernameSlot> {
  const seen = new Map<string, number>();
  for (const person of people) {
    const base = baseUsername(person.firstName, person.lastName, year);
    const k = seen.get(base) ?? 0;
    seen.set(base, k + 1);
    yield { ...person, base, k };
  }
}

/**
 * The username of each slot: the (k+1)-th name of base, base-2, base-3 ... that no account of
 * the user outside this project has. Deterministic for the same `taken`, so every chunk of a job,
 * processed in any order and even twice, gives each row the same name, and rows of one file never
 * collide. Equal to handing names out in file order (shared/generation/username.ts).
 */
export function usernamesFor(slots: readonly UsernameSlot[], taken: ReadonlySet<string>): string[] {
  const needed = new Map<string, number>();
  for (const { base, k } of slots) needed.set(base, Math.max(needed.get(base) ?? 0, k + 1));
  const free = new Map<string, string[]>();
  for (const [base, count] of needed) {
    const names: string[] = [];
    for (let n = 1; names.length < count; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      if (!taken.has(candidate)) names.push(candidate);
    }
    free.set(base, names);
  }
  return slots.map(({ base, k }) => free.get(base)![k]!);
}

/**
 * withUsernameSlots for rows that arrive over time or at once (an uploaded file's rows, read
 * again from S3 as its chunks are made): the same slots in the same order. With `mayRepeat` (from
 * a first reading, repeatedBases), a row whose base occurs once in the file gets k = 0 without
 * being counted: only the bases that may repeat are kept, not one entry per row.
 */
export async function* withUsernameSlotsAsync<T extends { firstName: string; lastName: string }>(
  people: Iterable<T> | AsyncIterable<T>,
  year: number,
  mayRepeat?: (person: { firstName: string; lastName: string }) => boolean,
): AsyncGenerator<T & UsernameSlot> {
  const seen = new Map<string, number>();
  for await (const person of people) {
    const base = baseUsername(person.firstName, person.lastName, year);
    if (mayRepeat && !mayRepeat(person)) {
      yield { ...person, base, k: 0 };
      continue;
    }
    const k = seen.get(base) ?? 0;
    seen.set(base, k + 1);
    yield { ...person, base, k };
  }
}

/** 32-bit FNV-1a of a string's UTF-16 code units. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Which bases may occur more than once in a file, from a reading that sees every row first: a
 * 32-bit hash per row (4 bytes, not a string), and after `seal` the hashes seen twice or more.
 * A base whose hash occurs once occurs once (exact); a collision only makes a base counted that
 * need not be. Bases are compared without the year (the same for every row of a file).
 */
export function repeatedBases() {
  let hashes = new Uint32Array(1024);
  let count = 0;
  let repeated: Set<number> | undefined;
  const hashOf = (person: { firstName: string; lastName: string }) => hash32(baseUsername(person.firstName, person.lastName, 0));
  return {
    add(person: { firstName: string; lastName: string }): void {
      if (count === hashes.length) {
        const grown = new Uint32Array(hashes.length * 2);
        grown.set(hashes);
        hashes = grown;
      }
      hashes[count++] = hashOf(person);
    },
    /** After the last `add`: the predicate for withUsernameSlotsAsync. */
    seal(): (person: { firstName: string; lastName: string }) => boolean {
      const sorted = hashes.subarray(0, count).sort();
      const found = new Set<number>();
      for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) found.add(sorted[i]!);
      repeated = found;
      hashes = new Uint32Array(0);
      const set = repeated;
      return (person) => set.has(hashOf(person));
    },
  };
}
