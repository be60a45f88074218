import { useEffect, useState } from 'react';

export const PROGRESS_TICK_MS = 500;
export const PROGRESS_CAP = 90;
/** 15 a tick reaches the cap after 3 s (spec 9), without Math.random (banned here). */
const PROGRESS_STEP = 15;

/**
 * Spec 4's progress for a request that reports none: up 15% every 500 ms, held at 90% until the
 * answer comes (the caller then leaves the processing stage).
 */
export function useSimulatedProgress(): number {
  const [percent, setPercent] = useState(0);
  useEffect(() => {
    const timer = window.setInterval(
      () => setPercent((current) => Math.min(PROGRESS_CAP, current + PROGRESS_STEP)),
      PROGRESS_TICK_MS,
    );
    return () => window.clearInterval(timer);
  }, []);
  return percent;
}
