import { schedules, type ScheduleDefinition, type ScheduleName } from '../../shared/routes';
import type { Stoppable } from './emulators';

type ScheduledModule = { handler: () => Promise<unknown> };
/** Scheduled functions, loaded when they first run (like a Lambda cold start). */
const scheduledModules: Record<ScheduleName, () => Promise<ScheduledModule>> = {
  'weekly-digest': () => import('../../functions/schedules/weekly-digest'),
  'project-expiry': () => import('../../functions/schedules/project-expiry'),
};

const HOUR_MS = 60 * 60 * 1000;

/** The next time (after `from`) of a weekly rule (its UTC weekday and hour), or of an hourly one (the next full hour). */
export function nextRun(definition: Pick<ScheduleDefinition, 'weekday' | 'hourUtc'>, from: Date): Date {
  if (definition.weekday === undefined || definition.hourUtc === undefined) return new Date((Math.floor(from.getTime() / HOUR_MS) + 1) * HOUR_MS);
  const next = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate(), definition.hourUtc));
  next.setUTCDate(next.getUTCDate() + ((definition.weekday - next.getUTCDay() + 7) % 7));
  if (next.getTime() <= from.getTime()) next.setUTCDate(next.getUTCDate() + 7);
  return next;
}

/**
 * The local stand-in for EventBridge Scheduler: a timer per schedule of shared/routes.ts that
 * runs its handler at the rule's time while the stack is up (a stack stopped at that time skips
 * the run, as a schedule that is disabled would). `npm run digest` runs the digest at once,
 * `npm run expire` the expiry sweep.
 */
export function startSchedules(log: (message: string) => void): Stoppable {
  const timers = new Map<ScheduleName, NodeJS.Timeout>();
  const arm = (definition: ScheduleDefinition) => {
    const at = nextRun(definition, new Date());
    // setTimeout holds at most ~24.8 days; a week is well within it. Checked hourly anyway, so a
    // machine that slept past the time runs it when it wakes, not a week later.
    const wait = Math.min(at.getTime() - Date.now(), HOUR_MS);
    const timer = setTimeout(() => {
      if (Date.now() < at.getTime()) {
        arm(definition);
        return;
      }
      void scheduledModules[definition.name]()
        .then((module) => module.handler())
        .then((result) => log(`${definition.name}: ${JSON.stringify(result)}`))
        .catch((error: unknown) => log(`${definition.name} failed: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => arm(definition));
    }, wait);
    timer.unref();
    timers.set(definition.name, timer);
  };
  for (const definition of schedules) arm(definition);
  return {
    name: 'schedules',
    stop: async () => {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
