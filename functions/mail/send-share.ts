import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../core/keys';
import { realSleep, type Sleep } from '../provisioning/pacing';

/**
 * The installation's one SES sending rate, shared between customers (docs/email.md, "Pacing").
 *
 * Time is cut into windows (1 s, longer at a rate under 4 a second); each window has one item
 * (`MAILRATE#<window>`) counting the e-mails granted in it, in all and per customer, and each
 * customer's remaining need. A worker's delivery asks for its e-mails of the next window once per
 * window (one conditional UpdateItem per delivery per window, not one per e-mail) and spaces what
 * it got evenly over that window. The condition holds the window's total under the rate less the
 * reserved share (Cognito's codes), and the customer under its share: half of the rate split
 * evenly between the customers asking, half in proportion to 1 / (the windows each one's send needs at
 * the full rate), so a 100-person send beside a 50,000-person one gets most of the rate for the
 * few seconds it needs, and the large one keeps at least half an even share. A customer the
 * asker did not know of (the count of customers in the window grew) fails the condition: the
 * asker reads the window (the failed write's old item) and asks again with the shares recomputed.
 * Deliveries ask for windows one or two ahead, so a window is often asked for before the other
 * customers sending in every window have asked for it: each pacer remembers the customers the
 * window items it saw named, and counts one for as long as what it needed there is not sent at
 * the pace it was granted (at least 3 windows, at most 8), not only the customers of the last
 * item it wrote (a small send beside a large one got every other window). A delivery that ends
 * leaves the windows it asked for ahead (its need 0: no share).
 */

export interface MailPaceSettings {
  /** SES's sending rate for the installation (MAIL_SEND_RATE); 0: unpaced (local measurements). */
  rate: number;
  /** The share of the rate left free for Cognito's codes (MAIL_RESERVED_SHARE, 0 to 0.5). */
  reservedShare: number;
  /** E-mails one customer may send in a UTC day (MAIL_DAILY_CAP); 0: no cap (still counted, for the bounce rate). */
  dailyCap: number;
}

export interface SendShareDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  clock?: () => number;
  sleep?: Sleep;
}

/** The window length and e-mails granted per window for a rate (at least 4 a window). */
export function rateWindow(settings: Pick<MailPaceSettings, 'rate' | 'reservedShare'>): { windowMs: number; limit: number } {
  const usable = settings.rate * (1 - Math.min(0.5, Math.max(0, settings.reservedShare)));
  if (!(usable > 0)) return { windowMs: 1000, limit: 0 };
  const seconds = Math.max(1, Math.ceil(4 / usable));
  return { windowMs: seconds * 1000, limit: Math.max(1, Math.floor(usable * seconds)) };
}

/**
 * One customer's share of a window: half an even split, half by how soon each one's send would
 * finish alone (`sizes`: each customer's send, its whole size; 0 for one that has sent everything,
 * which takes no share). By the send's size, not what is left of it: what is left would favour
 * whoever got ahead, and of ten equal sends the first would finish far sooner than the last.
 */
export function customerShare(limit: number, sizes: ReadonlyMap<string, number>, customer: string): number {
  const weight = (size: number) => 1 / Math.max(1, Math.ceil(size / Math.max(1, limit)));
  const sending = [...sizes].filter(([name, size]) => size > 0 || name === customer);
  const total = sending.reduce((sum, [, size]) => sum + weight(size), 0);
  const mine = weight(sizes.get(customer) ?? 1);
  return Math.max(1, Math.floor(limit * (0.5 / Math.max(1, sending.length) + (0.5 * mine) / total)));
}

/** The next 00:00 UTC after `now`: when a customer's daily allowance starts again. */
export const nextUtcMidnight = (now: number): string => new Date(Math.floor(now / 86_400_000 + 1) * 86_400_000).toISOString();
const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);

/**
 * E-mails reserved from a customer's daily allowance in one write (what is not used is given
 * back): DAILY_BLOCK first, twice the last block at each later write of the delivery up to
 * DAILY_BLOCK_MAX (a 500-e-mail chunk: 50, 100, 200, 150: four writes instead of ten).
 */
const DAILY_BLOCK = 50;
const DAILY_BLOCK_MAX = 400;
/** How late a slot may still be used (a busy event loop fires timers late; later ones are dropped, never sent in a burst). */
const LATE_MS = 50;
/**
 * How many windows back a customer named by a window item still counts as sending (pacer.recentOthers):
 * RECENT_WINDOWS whatever it needed, up to HELD_WINDOWS while what it needed there is not yet sent
 * at the pace it was granted there.
 */
const RECENT_WINDOWS = 3;
const HELD_WINDOWS = 8;
/** Conditional attempts of one window's request before it waits for the next window. */
const ATTEMPTS = 5;

export type TakeResult = 'go' | { capped: string };

interface WindowView {
  granted: number;
  customers: number;
  mine: number;
  registered: boolean;
  /** Each customer's send size as customerShare weighs it (0: it has sent everything). */
  sizes: Map<string, number>;
}

/** The item as it was when a condition failed (ReturnValuesOnConditionCheckFailure: ALL_OLD), unmarshalled. */
const oldItem = (error: ConditionalCheckFailedException): Record<string, unknown> | undefined =>
  error.Item
    ? Object.fromEntries(Object.entries(error.Item as Record<string, { N?: string; S?: string }>).map(([name, value]) => [name, value.N !== undefined ? Number(value.N) : value.S]))
    : undefined;

/**
 * A customer's name in the shared window items: a digest of its id, not the id. The windows are
 * global items that outlive an account deletion until their TTL removes them (within 48 hours), so
 * they hold nothing that names a user (functions/account-deletion/global-reference.ts).
 */
export const windowNameOf = (customer: string) => createHash('sha256').update(`mail-share:${customer}`).digest('base64url').slice(0, 16);

const needName = (customer: string) => `n#${customer}`;
const countName = (customer: string) => `c#${customer}`;
const sizeName = (customer: string) => `s#${customer}`;

/** The customers a window item names: what each asked for (its need), was granted and sends in all. */
function customersIn(item: Record<string, unknown> | undefined): Map<string, { need: number; granted: number; size: number }> {
  const customers = new Map<string, { need: number; granted: number; size: number }>();
  for (const [name, value] of Object.entries(item ?? {})) {
    if (!name.startsWith('n#')) continue;
    const who = name.slice(2);
    const need = Number(value);
    customers.set(who, { need, granted: Number(item?.[countName(who)] ?? 0), size: Number(item?.[sizeName(who)] ?? need) });
  }
  return customers;
}

function viewOf(item: Record<string, unknown> | undefined, customer: string): WindowView {
  const sizes = new Map<string, number>();
  for (const [who, { need, size }] of customersIn(item)) sizes.set(who, need > 0 ? size : 0);
  return {
    granted: Number(item?.granted ?? 0),
    customers: Number(item?.customers ?? 0),
    mine: Number(item?.[countName(customer)] ?? 0),
    registered: item?.[needName(customer)] !== undefined,
    sizes,
  };
}

/**
 * One delivery's pacer: `take()` resolves 'go' when an e-mail may be sent, or `{ capped }` (when
 * the allowance starts again) once the customer's daily allowance is used; `holdFor` holds every
 * send (a throttled answer); `close()` gives back what it reserved and did not use.
 */
export class SharedMailPacer {
  private readonly clock: () => number;
  /** This customer in the window items (windowNameOf). */
  private readonly windowName: string;
  private readonly sleep: Sleep;
  private readonly windowMs: number;
  private readonly limit: number;
  private readonly need: () => number;
  private readonly left: () => number;
  /** When each e-mail granted may go, and the least time after the previous one (half its window's spacing). */
  private slots: { at: number; gap: number }[] = [];
  private lastGo = 0;
  private requested = -1;
  private ahead: Promise<void> | undefined;
  private heldUntil = 0;
  /** The other customers' needs as the window items this pacer saw named them, and the window each was last seen in. */
  private readonly others = new Map<string, { need: number; window: number; granted: number; size: number }>();
  private reserved = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** E-mails this pacer let go. */
  private given = 0;
  /** A reservation of the daily allowance under way, and the answer once none is left. */
  private reserving: Promise<void> | undefined;
  private capped: { capped: string } | undefined;
  /** The size of the next reservation of the daily allowance (it doubles as the delivery goes on). */
  private dailyBlock = DAILY_BLOCK;
  /** The size of the last reservation: the next is asked for once half of it is used. */
  private lastBlock = DAILY_BLOCK;

  constructor(
    private readonly deps: SendShareDeps,
    private readonly settings: MailPaceSettings,
    private readonly customer: string,
    /** E-mails the customer has to send (its send's open count when the delivery began): its weight in the share. */
    private readonly needAtStart: number,
    /** E-mails this delivery may send: it asks a window for what is left of them at most. */
    private readonly count: number,
    /** Whether the customer's daily cap counts these e-mails (credential e-mails; not the customer's own notifications). */
    private readonly counted = true,
    /** The customer's whole send (its weight in the share, customerShare); its need at the start when not given. */
    private readonly size = needAtStart,
  ) {
    this.clock = deps.clock ?? Date.now;
    this.windowName = windowNameOf(customer);
    this.need = () => this.needAtStart - this.given;
    this.left = () => this.count - this.given;
    this.sleep = deps.sleep ?? realSleep;
    ({ windowMs: this.windowMs, limit: this.limit } = rateWindow(settings));
  }

  holdFor(ms: number): void {
    this.heldUntil = Math.max(this.heldUntil, this.clock() + ms);
  }

  /** Waits its turn (calls are served in order). */
  take(): Promise<TakeResult> {
    const turn = this.queue.then(() => this.next());
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Gives back the daily allowance reserved and not used, and leaves the windows it asked for ahead. */
  async close(): Promise<void> {
    await this.queue.catch(() => undefined);
    await this.reserving?.catch(() => undefined);
    await Promise.all([this.leaveWindows(), this.giveBackDaily()]);
  }

  /** Gives back the daily allowance reserved and not used (a credential delivery's). */
  private async giveBackDaily(): Promise<void> {
    if (this.reserved <= 0 || !this.counted) return;
    const unused = this.reserved;
    this.reserved = 0;
    await this.deps.db
      .send(
        new UpdateCommand({
          TableName: this.deps.tableName,
          Key: keys.mailDay(this.customer, utcDay(this.clock())),
          UpdateExpression: 'ADD sent :back',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':back': -unused },
        }),
      )
      .catch(() => undefined);
  }

  /**
   * A delivery that ends says so in the windows it registered in from now on (its need 0), so
   * other customers stop leaving it a share there: its send may be done, or its next chunk may
   * wait for a worker (four mail workers for ten customers' sends in the tenants bench: a share
   * held for a customer between deliveries went unused). A delivery of the same customer still
   * sending registers its need again in the next window it asks for.
   */
  private async leaveWindows(): Promise<void> {
    const current = Math.floor(this.clock() / this.windowMs);
    if (this.limit <= 0 || this.requested < current) return;
    const names = { '#n': needName(this.windowName) };
    // At most the current window and two ahead (request asks no further), written at once.
    const windows = Array.from({ length: this.requested - current + 1 }, (_, i) => current + i);
    await Promise.all(
      windows.map((window) =>
        this.deps.db
          .send(
            new UpdateCommand({
              TableName: this.deps.tableName,
              Key: keys.mailRateWindow(window),
              UpdateExpression: 'SET #n = :none',
              ConditionExpression: 'attribute_exists(#n)',
              ExpressionAttributeNames: names,
              ExpressionAttributeValues: { ':none': 0 },
            }),
          )
          .catch(() => undefined),
      ),
    );
  }

  private async next(): Promise<TakeResult> {
    if (this.counted) {
      while (this.reserved <= 0) {
        if (this.capped) return this.capped;
        await (this.reserving ??= this.reserveDaily().finally(() => (this.reserving = undefined)));
      }
      // The next block is reserved while this one is used: its round trip never holds the sends up.
      if (this.reserved <= this.lastBlock / 2 && !this.reserving && !this.capped && this.left() > this.reserved) {
        this.reserving = this.reserveDaily().finally(() => (this.reserving = undefined));
        this.reserving.catch(() => undefined);
      }
    }
    await this.slot();
    if (this.counted) this.reserved--;
    this.given++;
    return 'go';
  }

  /** Reserves up to a block (dailyBlock) of today's allowance; `capped` (when it starts again) once none is left. */
  private async reserveDaily(): Promise<void> {
    const now = this.clock();
    // Counted without a cap too: the bounce-rate cut-off reads what was sent (bounce-rate.ts).
    const cap = this.settings.dailyCap > 0 ? this.settings.dailyCap : Number.MAX_SAFE_INTEGER;
    let want = Math.max(1, Math.min(this.dailyBlock, this.left() - this.reserved, cap));
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        await this.deps.db.send(
          new UpdateCommand({
            TableName: this.deps.tableName,
            Key: keys.mailDay(this.customer, utcDay(now)),
            UpdateExpression: 'SET entityType = if_not_exists(entityType, :type), expiresAt = :ttl ADD sent :n',
            ConditionExpression: 'attribute_not_exists(sent) OR sent <= :most',
            ExpressionAttributeValues: { ':type': 'MailDay', ':ttl': Math.floor(now / 1000) + 3 * 86_400, ':n': want, ':most': cap - want },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        this.reserved += want;
        this.lastBlock = want;
        this.dailyBlock = Math.min(DAILY_BLOCK_MAX, this.dailyBlock * 2);
        return;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        const left = cap - Number(oldItem(error)?.sent ?? 0);
        if (left <= 0) {
          this.capped = { capped: nextUtcMidnight(now) };
          return;
        }
        want = Math.min(want, left);
      }
    }
    this.capped = { capped: nextUtcMidnight(now) };
  }

  /** Waits for this delivery's next slot in a window (asking for the next window's e-mails as it goes). */
  private async slot(): Promise<void> {
    if (this.limit <= 0) {
      const wait = this.heldUntil - this.clock();
      if (wait > 0) await this.sleep(wait);
      return;
    }
    for (;;) {
      const now = this.clock();
      // A slot goes at its time, or later when the delivery was held up, but never closer than half
      // its spacing to the previous e-mail (no burst to catch up); one that would go more than
      // LATE_MS late, or inside a hold, is dropped.
      const due = (slot: { at: number; gap: number }) => Math.max(slot.at, this.lastGo + slot.gap, now);
      while (this.slots.length && (due(this.slots[0]!) - this.slots[0]!.at > LATE_MS || this.slots[0]!.at < this.heldUntil)) this.slots.shift();
      if (this.slots.length) {
        const slot = this.slots.shift()!;
        const at = due(slot);
        this.lastGo = at;
        // The next window is asked for (once) from the middle of this one on: a customer that
        // starts in the first half has registered in it by then, and gets its share of it at once.
        const window = Math.floor(slot.at / this.windowMs);
        const late = slot.at >= (window + 0.5) * this.windowMs || !this.slots.length;
        // Not when the slots held (this one included) are all the delivery still needs.
        if (late && this.requested <= window && this.left() > this.slots.length + 1) this.ahead ??= this.request(window + 1, this.slots.length + 1).finally(() => (this.ahead = undefined));
        if (at > now) await this.sleep(at - now);
        return;
      }
      if (this.ahead) {
        await this.ahead;
        continue;
      }
      const current = Math.floor(now / this.windowMs);
      const target = Math.max(current + 1, this.requested + 1);
      if (target > current + 2) {
        // Asked as far ahead as it may, and got nothing: wait for the next window to begin.
        await this.sleep(Math.max(1, (current + 1) * this.windowMs - now));
        continue;
      }
      await this.request(target);
      if (!this.slots.length && this.requested === current + 1) await this.request(current + 2);
      if (!this.slots.length) await this.sleep(Math.max(1, (current + 1) * this.windowMs - this.clock()));
    }
  }

  /** Notes the other customers a window item names (and their needs). */
  private remember(item: Record<string, unknown> | undefined, window: number): void {
    for (const [customer, { need, granted, size }] of customersIn(item)) {
      if (customer === this.windowName) continue;
      // What it still needs after this window: one granted all it asked for here is not waited for later.
      const before = this.others.get(customer);
      if (!before || before.window <= window) this.others.set(customer, { need: Math.max(0, need - granted), window, granted, size });
    }
  }

  /**
   * The other customers still sending as far as this pacer knows: named by a window item it saw
   * for one of the RECENT_WINDOWS windows before `window` or later. A customer asks for its windows
   * one or two ahead, so a window may be asked for before another customer that sends in every
   * window has registered in it; counted from the last window item alone, such a customer was
   * missed and the asker took the whole window (a small send got every other window).
   */
  private recentOthers(window: number): Map<string, number> {
    const sizes = new Map<string, number>();
    for (const [customer, seen] of this.others) {
      const since = window - seen.window;
      // What it still needs by then, at the pace it was granted where it was seen.
      const still = seen.need - Math.max(1, seen.granted) * Math.max(0, since - 1);
      if (seen.need > 0 && (since <= RECENT_WINDOWS || (still > 0 && since <= HELD_WINDOWS))) sizes.set(customer, Math.max(1, seen.size));
      else if (since > RECENT_WINDOWS) this.others.delete(customer);
    }
    return sizes;
  }

  /** Asks for this customer's share of a window; its e-mails become evenly spaced slots. */
  private async request(window: number, holding = 0): Promise<void> {
    this.requested = Math.max(this.requested, window);
    const need = Math.max(1, this.need() - holding);
    const left = Math.max(0, this.left() - holding);
    // What this delivery knows of the window before it asks: the customers (and their needs) of the
    // last window it saw; nothing granted yet. A window that holds more is read from the failed write.
    let known: WindowView = { ...viewOf(undefined, this.windowName), sizes: this.recentOthers(window) };
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const sizes = new Map(known.sizes);
      sizes.set(this.windowName, Math.max(1, this.size));
      const share = customerShare(this.limit, sizes, this.windowName);
      const k = Math.max(0, Math.min(left, share - known.mine, this.limit - known.granted));
      const others = [...sizes.keys()].filter((c) => c !== this.windowName).length;
      const names = { '#c': countName(this.windowName), '#n': needName(this.windowName), '#s': sizeName(this.windowName) };
      try {
        const { Attributes } = await this.deps.db.send(
          new UpdateCommand({
            TableName: this.deps.tableName,
            Key: keys.mailRateWindow(window),
            UpdateExpression: 'SET #n = :need, #s = :size, entityType = :type, expiresAt = :ttl ADD granted :k, #c :k, customers :joined',
            ConditionExpression: `(attribute_not_exists(granted) OR granted <= :free) AND (attribute_not_exists(customers) OR customers <= :known) AND (attribute_not_exists(#c) OR #c <= :room) AND ${known.registered ? 'attribute_exists(#n)' : 'attribute_not_exists(#n)'}`,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: {
              ':need': need,
              ':size': Math.max(1, this.size),
              ':type': 'MailRateWindow',
              ':ttl': Math.floor((window + 1) * (this.windowMs / 1000)) + 3600,
              ':k': k,
              ':joined': known.registered ? 0 : 1,
              ':free': this.limit - k,
              ':known': known.registered ? others + 1 : others,
              ':room': share - k,
            },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        this.remember(Attributes, window);
        const start = window * this.windowMs;
        for (let i = 0; i < k; i++) this.slots.push({ at: start + ((i + 0.5) * this.windowMs) / k, gap: this.windowMs / (2 * k) });
        return;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        // Someone asked meanwhile (or a customer this one did not know of): ask again with the window as it is.
        const seen = oldItem(error);
        this.remember(seen, window);
        known = viewOf(seen, this.windowName);
        // Customers the window does not name yet but a recent one did still count (they ask for it soon).
        for (const [customer, size] of this.recentOthers(window)) if (!known.sizes.has(customer)) known.sizes.set(customer, size);
      }
    }
  }
}
