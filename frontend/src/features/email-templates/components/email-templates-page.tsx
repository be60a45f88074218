import { Box, Grid, Skeleton, Stack } from '@chakra-ui/react';
import { MailIcon } from 'lucide-react';
import { useRef, useState } from 'react';
import { proFeatures } from '@shared/plans';
import type { EmailTemplate } from '@shared/schemas/email-templates';
import { PageHeader } from '../../../components/page-header';
import { ProFeatureEmptyState } from '../../../components/pro-feature-empty-state';
import { QueryErrorCard } from '../../../components/query-error-card';
import { UpgradePromptDialog } from '../../../components/upgrade-prompt-dialog';
import { effectivePlanOf } from '../../../lib/plan-status';
import { useSubscriptionStatus } from '../../../lib/subscription-api';
import { useEmailTemplatesQuery } from '../api/email-templates-api';
import { SuppressedAddressesCard } from './suppressed-addresses-card';
import { TemplateEditor, type TemplateEditorHandle } from './template-editor';
import { TemplateList } from './template-list';
import { BuiltInTemplateCard } from './built-in-template-card';

const header = (
  <PageHeader title="Email Templates" subtitle="Customise the e-mails sent to the holders of new accounts." />
);

/** List beside the editor on wide screens, above it on narrow ones. */
const columns = { base: 'minmax(0, 1fr)', lg: '18rem minmax(0, 1fr)', xl: '20rem minmax(0, 1fr)' };

/**
 * Email Templates (spec 2): the list on the left, the editor on the right. Customising templates
 * is a Pro feature (spec 6): on the free plan (or a past-due Pro plan) existing templates are
 * shown read-only (they can be previewed and deleted) and creating or saving opens the upgrade
 * prompt; with no templates the page is the feature's gate. If the plan cannot be read, the page
 * is gated (the server refuses a free user's saves anyway).
 */
export function EmailTemplatesPage() {
  const templates = useEmailTemplatesQuery();
  const status = useSubscriptionStatus();
  const plan = status.data ? effectivePlanOf(status.data) : status.isError ? 'free' : undefined;
  const gated = plan !== 'pro';

  const [selectedId, setSelectedId] = useState<string>();
  const [upgradeOpen, setUpgradeOpen] = useState(false);
  const editor = useRef<TemplateEditorHandle>(null);

  if (templates.isError && !templates.data) {
    return (
      <>
        {header}
        <QueryErrorCard
          message="Failed to load email templates."
          onRetry={() => void templates.refetch()}
          retrying={templates.isFetching}
        />
      </>
    );
  }

  const list = templates.data;
  if (list?.length === 0 && plan === 'free') {
    return (
      <>
        {header}
        <ProFeatureEmptyState
          feature={proFeatures.emailTemplates}
          icon={<MailIcon />}
          title="No templates yet"
          description="Create your first template."
          freeDescription="Send new account holders e-mails in your own words and brand. E-mail notifications and templates are part of the Pro plan."
          actionLabel="Create your first template"
        />
        <Box mt="6">
          <SuppressedAddressesCard />
        </Box>
      </>
    );
  }

  // Free users have nothing to create: they start on their first (the default) template.
  const selected = list?.find((template) => template.id === selectedId) ?? (gated ? list?.[0] : undefined);
  const loading = !list || !plan;

  const startNew = () => {
    if (gated) setUpgradeOpen(true);
    else setSelectedId(undefined);
  };

  return (
    <>
      {header}
      <Grid templateColumns={columns} gap="6" alignItems="start">
        <Stack gap="4">
          <TemplateList
            templates={loading ? undefined : list}
            selectedId={selected?.id}
            onSelect={(template: EmailTemplate) => setSelectedId(template.id)}
            onNew={startNew}
            onCreateFirst={() => editor.current?.focusName()}
            canCreate={!gated}
          />
          {loading ? null : (
            <BuiltInTemplateCard
              gated={gated}
              hasDefault={list.some((template) => template.isDefault)}
              onUpgrade={() => setUpgradeOpen(true)}
              onCopied={(created) => setSelectedId(created.id)}
            />
          )}
        </Stack>
        {loading ? (
          <Stack gap="4" role="status" aria-label="Loading the editor" aria-busy="true">
            <Skeleton height="10" width="40%" borderRadius="md" />
            <Skeleton height="10" borderRadius="md" />
            <Skeleton height="10" borderRadius="md" />
            <Skeleton height="64" borderRadius="md" />
          </Stack>
        ) : (
          <TemplateEditor
            key={selected?.id ?? 'new'}
            ref={editor}
            template={selected}
            gated={gated}
            onUpgrade={() => setUpgradeOpen(true)}
            onCreated={(created) => setSelectedId(created.id)}
            onDeleted={() => setSelectedId(undefined)}
          />
        )}
      </Grid>
      {/* Not a Pro feature: a lapsed plan still sees why addresses are skipped. */}
      <Box mt="6">
        <SuppressedAddressesCard />
      </Box>
      <UpgradePromptDialog feature={proFeatures.emailTemplates} open={upgradeOpen} onOpenChange={setUpgradeOpen} />
    </>
  );
}
