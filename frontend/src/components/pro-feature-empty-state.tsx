import { Button } from '@chakra-ui/react';
import { CrownIcon } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { effectivePlanOf } from '../lib/plan-status';
import { useSubscriptionStatus } from '../lib/subscription-api';
import { EmptyStateCard } from './empty-state-card';
import { UpgradePromptDialog } from './upgrade-prompt-dialog';

/**
 * The empty state of a Pro feature's page. Free users (and past-due Pro users) get a button that
 * opens the upgrade prompt for the feature (spec 6); Pro users get the page's own next step.
 * The Pro step is offered only once the plan is known to be Pro: while the status loads the card
 * has the free text and no button, and if it failed to load, the free variant (the gate).
 */
export function ProFeatureEmptyState({
  feature,
  icon,
  title,
  description,
  freeDescription,
  actionLabel,
  proAction,
}: {
  /** The gate's feature name, e.g. 'API Integrations'. */
  feature: string;
  icon: ReactNode;
  title: string;
  description: string;
  /** What a free user reads instead of `description`. */
  freeDescription: string;
  /** The empty state's button, which opens the gate for free users. */
  actionLabel: string;
  proAction?: ReactNode;
}) {
  const { data, isError } = useSubscriptionStatus();
  const [gateOpen, setGateOpen] = useState(false);
  const plan = data ? effectivePlanOf(data) : undefined;
  if (plan === 'pro') return <EmptyStateCard icon={icon} title={title} description={description} action={proAction} />;
  if (!plan && !isError) return <EmptyStateCard icon={icon} title={title} description={freeDescription} />;
  return (
    <>
      <EmptyStateCard
        icon={icon}
        title={title}
        description={freeDescription}
        action={
          <Button colorPalette="blue" onClick={() => setGateOpen(true)}>
            <CrownIcon aria-hidden="true" />
            {actionLabel}
          </Button>
        }
      />
      <UpgradePromptDialog feature={feature} open={gateOpen} onOpenChange={setGateOpen} />
    </>
  );
}
