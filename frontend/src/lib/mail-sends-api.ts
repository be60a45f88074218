import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { EmailTemplate } from '@shared/schemas/email-templates';
import type { CredentialOptions, CredentialOptionsInput, MailSend, SendCredentialsInput } from '@shared/schemas/mail-send';
import { ApiError, apiRequest, serverMessageOf } from './api-client';
import { jobPollInterval } from './job-polling';
import { queryKeys } from './query-keys';
import { toaster } from './toaster';
import { plural } from '@shared/text/plural';

export const mailSendFinished = (status: MailSend['status'] | undefined) => status === 'completed' || status === 'failed';

/**
 * GET /api/mail-sends/{id} until the send has completed or failed, on the bulk jobs' schedule.
 * Each change of its counts refreshes the project (its e-mail counts) and the accounts' badges.
 */
export function useMailSendQuery(sendId: string | undefined, initial?: MailSend) {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: queryKeys.mailSend(sendId ?? ''),
    queryFn: () => apiRequest<MailSend>(`/api/mail-sends/${encodeURIComponent(sendId!)}`),
    enabled: !!sendId,
    initialData: initial?.id === sendId ? initial : undefined,
    refetchInterval: (q) => (mailSendFinished(q.state.data?.status) ? false : jobPollInterval(q.state.dataUpdateCount)),
    refetchIntervalInBackground: true,
    retry: 3,
  });
  const send = query.data;
  const progress = send ? `${send.status}:${send.sent}:${send.failed}:${send.suppressed}` : '';
  useEffect(() => {
    if (!send) return;
    void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
    void queryClient.invalidateQueries({ queryKey: queryKeys.accountSearch });
    // Keyed by the counts: a poll that changed nothing reads nothing more.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [progress]);
  return query;
}

/** The templates a send may use (the user's active ones; the built-in one is always there). */
export function useTemplateChoicesQuery(enabled = true) {
  return useQuery({
    queryKey: queryKeys.emailTemplates,
    queryFn: () => apiRequest<EmailTemplate[]>('/api/email-templates'),
    enabled,
  });
}

/**
 * POST /api/projects/{id}/send-credentials (202 with the send). A refusal the server explains (a
 * send under way, nothing to send, the plan) shows its message.
 */
export function useSendCredentials() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ projectId, ...body }: SendCredentialsInput & { projectId: string }) =>
      apiRequest<MailSend>(`/api/projects/${encodeURIComponent(projectId)}/send-credentials`, { method: 'POST', body }),
    onSuccess: (send) => {
      queryClient.setQueryData(queryKeys.mailSend(send.id), send);
      void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
      toaster.create({
        type: 'success',
        title: 'Sending credentials',
        description: `${plural(send.total, 'e-mail')} with ${send.templateName}.`,
      });
    },
    onError: (error) => {
      if (error.message.startsWith('401')) return; // the logged-out toast is already showing
      if (error instanceof ApiError && error.status === 409) void queryClient.invalidateQueries({ queryKey: queryKeys.projects });
      toaster.create({
        type: 'error',
        title: 'Credentials not sent',
        description: serverMessageOf(error, [400, 403, 404, 409]) ?? 'Failed to start sending. Please try again.',
      });
    },
  });
}

export type CredentialChoice = Pick<CredentialOptions, 'delivery' | 'linkExpiresInDays'> & { templateId?: string };

/** A choice as the API takes it: the template when one is chosen, the link's days only for a link. */
export const credentialOptionsOf = (choice: CredentialChoice): CredentialOptionsInput => ({
  ...(choice.templateId ? { templateId: choice.templateId } : {}),
  delivery: choice.delivery,
  ...(choice.delivery === 'link' ? { linkExpiresInDays: choice.linkExpiresInDays } : {}),
});
