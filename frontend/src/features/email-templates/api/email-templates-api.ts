import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { EmailTemplate, EmailTemplateRequest } from '@shared/schemas/email-templates';
import { ApiError, apiRequest, serverFieldErrors, serverMessageOf, type FieldError } from '../../../lib/api-client';
import { invalidatePlanQueries } from '../../../lib/subscription-api';
import { toaster } from '../../../lib/toaster';

export const emailTemplatesQueryKey = ['/api/email-templates'] as const;

/** GET /api/email-templates: the default first, then newest first (every plan may read). */
export function useEmailTemplatesQuery() {
  return useQuery({
    queryKey: emailTemplatesQueryKey,
    queryFn: () => apiRequest<EmailTemplate[]>('/api/email-templates'),
  });
}

/** The server's order: the default first, then newest first. */
const byDefaultThenNewest = (a: EmailTemplate, b: EmailTemplate) =>
  Number(b.isDefault) - Number(a.isDefault) || b.createdAt.localeCompare(a.createdAt);

/**
 * Puts a saved template into the cached list at once (the editor selects it by id), as the server
 * would: it replaces its old version and, when it is the default, is the only default. The list is
 * then read again to be sure.
 */
function storeSaved(queryClient: QueryClient, saved: EmailTemplate): void {
  queryClient.setQueryData<EmailTemplate[]>(emailTemplatesQueryKey, (list = []) =>
    [
      saved,
      ...list
        .filter((template) => template.id !== saved.id)
        .map((template) => (saved.isDefault && template.isDefault ? { ...template, isDefault: false } : template)),
    ].sort(byDefaultThenNewest),
  );
  void queryClient.invalidateQueries({ queryKey: emailTemplatesQueryKey });
}

const isLoggedOut = (error: Error) => error.message.startsWith('401');

export type FieldProblem = FieldError;

/** The field problems of a refused save (400 details), e.g. HTML with nothing left once sanitised. */
export const fieldProblemsOf = (error: Error): readonly FieldProblem[] => serverFieldErrors(error);

export const isPlanRefusal = (error: Error) => error instanceof ApiError && error.status === 403;

/**
 * The spec's error toast (spec 8), with the server's reason when it gave one: an invalid template
 * (400, e.g. HTML with nothing left once sanitised), a Pro-only action (403), a template that is
 * gone (404) or the limit of templates (409).
 */
function errorToast(title: string, description: string, error: Error): void {
  if (isLoggedOut(error)) return; // the logged-out toast is already showing
  const reason = serverMessageOf(error, [400, 403, 404, 409, 413]);
  toaster.create({ type: 'error', title, description: reason ? `${description} ${reason}` : description });
}

/**
 * A refused Pro-only save means the plan shown here was out of date (e.g. a lapsed payment):
 * read the plan again so the page shows the gate.
 */
function onSaveError(queryClient: QueryClient, error: Error, title: string, description: string): void {
  if (isPlanRefusal(error)) invalidatePlanQueries(queryClient);
  errorToast(title, description, error);
}

/** POST /api/email-templates (Pro): answers 201 with the template as stored (sanitised HTML). */
export function useCreateEmailTemplate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (template: EmailTemplateRequest) =>
      apiRequest<EmailTemplate>('/api/email-templates', { method: 'POST', body: template }),
    onSuccess: (created) => {
      storeSaved(queryClient, created);
      toaster.create({ type: 'success', title: 'Template created', description: `${created.name} is saved.` });
    },
    onError: (error) => onSaveError(queryClient, error, 'Create failed', 'Failed to create email template.'),
  });
}

/** PUT /api/email-templates/{id} (Pro): answers 200 with the template as stored. */
export function useUpdateEmailTemplate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, template }: { id: string; template: EmailTemplateRequest }) =>
      apiRequest<EmailTemplate>(`/api/email-templates/${encodeURIComponent(id)}`, { method: 'PUT', body: template }),
    onSuccess: (updated) => {
      storeSaved(queryClient, updated);
      toaster.create({ type: 'success', title: 'Template updated', description: `${updated.name} is saved.` });
    },
    onError: (error) => onSaveError(queryClient, error, 'Update failed', 'Failed to update email template.'),
  });
}

/** DELETE /api/email-templates/{id}: answers 204 (every plan may delete). */
export function useDeleteEmailTemplate() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (template: EmailTemplate) =>
      apiRequest<void>(`/api/email-templates/${encodeURIComponent(template.id)}`, { method: 'DELETE' }),
    onSuccess: (_, deleted) => {
      queryClient.setQueryData<EmailTemplate[]>(emailTemplatesQueryKey, (list = []) =>
        list.filter((template) => template.id !== deleted.id),
      );
      void queryClient.invalidateQueries({ queryKey: emailTemplatesQueryKey });
      toaster.create({ type: 'success', title: 'Template deleted', description: `${deleted.name} is deleted.` });
    },
    onError: (error) => {
      // Gone already (deleted in another tab): the list is out of date.
      if (error instanceof ApiError && error.status === 404) void queryClient.invalidateQueries({ queryKey: emailTemplatesQueryKey });
      errorToast('Delete failed', 'Failed to delete email template.', error);
    },
  });
}
