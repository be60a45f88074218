import { Badge, Button, Card, chakra, EmptyState, Flex, HStack, Stack, Text, VStack } from '@chakra-ui/react';
import { CrownIcon, MailIcon, PlusIcon } from 'lucide-react';
import type { EmailTemplate } from '@shared/schemas/email-templates';
import { ListSkeleton } from '../../../components/list-skeleton';
import { pluralWord } from '@shared/text/plural';

/**
 * The templates (spec 2): name, subject, 'Default' and 'Inactive' badges; the selected one is in
 * the editor. 'New Template' clears the selection (free users: it opens the upgrade prompt).
 */
export function TemplateList({
  templates,
  selectedId,
  onSelect,
  onNew,
  onCreateFirst,
  canCreate,
}: {
  /** undefined while loading. */
  templates: EmailTemplate[] | undefined;
  selectedId: string | undefined;
  onSelect: (template: EmailTemplate) => void;
  onNew: () => void;
  /** The empty state's button: to the editor's first field. */
  onCreateFirst: () => void;
  /** Pro: 'New Template' starts a template; otherwise it is marked as a Pro feature. */
  canCreate: boolean;
}) {
  return (
    <Card.Root variant="outline" size="sm" as="section" aria-labelledby="template-list-title">
      <Card.Header>
        <Flex justify="space-between" align="center" gap="3" wrap="wrap">
          <HStack gap="2">
            <Card.Title as="h2" id="template-list-title">
              Templates
            </Card.Title>
            {templates?.length ? (
              <Badge variant="subtle">
                {templates.length}
                <Text as="span" srOnly>
                  {` ${pluralWord(templates.length, 'template')}`}
                </Text>
              </Badge>
            ) : null}
          </HStack>
          <Button size="sm" variant="outline" colorPalette="blue" onClick={onNew} disabled={!templates}>
            {canCreate ? <PlusIcon aria-hidden="true" /> : <CrownIcon aria-hidden="true" />}
            New Template
          </Button>
        </Flex>
      </Card.Header>
      <Card.Body>
        {!templates ? (
          <ListSkeleton rows={4} height="16" label="Loading templates" />
        ) : templates.length === 0 ? (
          <EmptyState.Root size="sm">
            <EmptyState.Content>
              <EmptyState.Indicator>
                <MailIcon />
              </EmptyState.Indicator>
              <VStack textAlign="center">
                <EmptyState.Title as="h2">No templates yet</EmptyState.Title>
                <EmptyState.Description>Create your first template with the editor.</EmptyState.Description>
              </VStack>
              <Button size="sm" colorPalette="blue" onClick={onCreateFirst}>
                Create your first template
              </Button>
            </EmptyState.Content>
          </EmptyState.Root>
        ) : (
          <Stack
            as="ul"
            aria-label="Email templates"
            gap="2"
            listStyleType="none"
            maxH={{ base: '20rem', lg: '34rem' }}
            overflowY="auto"
            p="1"
            m="-1"
          >
            {templates.map((template) => (
              <li key={template.id}>
                <TemplateListItem
                  template={template}
                  selected={template.id === selectedId}
                  onSelect={() => onSelect(template)}
                />
              </li>
            ))}
          </Stack>
        )}
      </Card.Body>
    </Card.Root>
  );
}

function TemplateListItem({ template, selected, onSelect }: { template: EmailTemplate; selected: boolean; onSelect: () => void }) {
  return (
    <chakra.button
      type="button"
      onClick={onSelect}
      aria-current={selected ? 'true' : undefined}
      w="full"
      textAlign="start"
      px="3"
      py="2.5"
      borderWidth="1px"
      borderRadius="md"
      borderColor={selected ? 'blue.solid' : 'border'}
      bg={selected ? 'blue.subtle' : 'bg.panel'}
      cursor="pointer"
      transition="background 0.15s, border-color 0.15s"
      _hover={{ bg: selected ? 'blue.subtle' : 'bg.muted' }}
      focusVisibleRing="outside"
    >
      <Stack gap="1" minW="0">
        <Flex justify="space-between" align="flex-start" gap="2">
          <Text fontWeight="semibold" fontSize="sm" lineClamp={1} wordBreak="break-all">
            {template.name}
          </Text>
          <HStack gap="1" flexShrink="0">
            {template.isDefault ? (
              <Badge size="sm" colorPalette="blue" variant="solid">
                Default
              </Badge>
            ) : null}
            {template.isActive ? null : (
              <Badge size="sm" colorPalette="gray" variant="outline">
                Inactive
              </Badge>
            )}
          </HStack>
        </Flex>
        <Text fontSize="xs" color="fg.muted" lineClamp={1} wordBreak="break-all">
          {template.subject}
        </Text>
      </Stack>
    </chakra.button>
  );
}
