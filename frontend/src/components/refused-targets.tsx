import { List, Text } from '@chakra-ui/react';
import type { TargetChoice } from '../lib/provisioning-progress';

/**
 * The integrations that cannot take a project's accounts, each with its reason: beside every
 * choice of a provisioning target (a new project's and an existing project's 'Provision').
 */
export function RefusedTargets({ choices }: { choices: readonly TargetChoice[] }) {
  const refused = choices.filter((choice) => choice.reason);
  if (!refused.length) return null;
  return (
    <List.Root gap="1" fontSize="sm" color="fg.muted" ps="4" aria-label="Integrations that cannot be a target">
      {refused.map(({ integration, reason }) => (
        <List.Item key={integration.id} wordBreak="break-word">
          <Text as="span" fontWeight="medium" color="fg">
            {integration.name}
          </Text>
          : {reason}
        </List.Item>
      ))}
    </List.Root>
  );
}
