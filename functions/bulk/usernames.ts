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
