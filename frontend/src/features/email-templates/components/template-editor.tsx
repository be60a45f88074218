import { Alert, Button, Card, Flex, Input, Stack, Switch, Tabs, Text, Textarea } from '@chakra-ui/react';
import { zodResolver } from '@hookform/resolvers/zod';
import { CrownIcon, EyeIcon, PencilIcon, SaveIcon } from 'lucide-react';
import { useImperativeHandle, useRef, useState, type FormEvent, type Ref } from 'react';
import { Controller, useForm, useWatch } from 'react-hook-form';
import {
  emailTemplateSchema,
  type EmailTemplate,
  type EmailTemplateInput,
  type EmailTemplateRequest,
  type TemplateVariable,
} from '@shared/schemas/email-templates';
import { FormField } from '../../../components/form-field';
import { formatDateTime } from '../../../lib/format-date';
import { fieldProblemsOf, useCreateEmailTemplate, useUpdateEmailTemplate } from '../api/email-templates-api';
import { DeleteTemplateButton } from './delete-template-dialog';
import { TemplatePreview } from './template-preview';
import { TemplateVariablesCard } from './template-variables-card';

type EditorMode = 'edit' | 'preview';

/** What the page may ask of the editor. */
export interface TemplateEditorHandle {
  /** Focuses (and so scrolls to) Template Name. */
  focusName: () => void;
}

const formValuesOf = (template: EmailTemplate | undefined): EmailTemplateInput => ({
  name: template?.name ?? '',
  subject: template?.subject ?? '',
  brandLogoUrl: template?.brandLogoUrl ?? '',
  htmlContent: template?.htmlContent ?? '',
  // Not edited here (spec 2 lists no field for it), but kept as it is on update.
  textContent: template?.textContent ?? '',
  isDefault: template?.isDefault ?? false,
  isActive: template?.isActive ?? true,
});

const htmlPlaceholder = `<p>Hello {{accountHolderName}},</p>
<p>Your account for {{projectName}} is ready.</p>
<p>Username: {{username}}<br>Password: {{password}}</p>`;

/** The fields a server's 400 details may name. */
const editableFields = ['name', 'subject', 'brandLogoUrl', 'htmlContent'] as const;
type EditableField = (typeof editableFields)[number];

const switches = [
  { name: 'isDefault', label: 'Default Template', help: 'Used for new account e-mails. Only one template is the default.' },
  { name: 'isActive', label: 'Active', help: 'Inactive templates are kept but not used.' },
] as const;

/**
 * The template editor (spec 2 and 4): a selected template ('Edit Template') or a new one ('Create
 * Template'), in edit or preview mode. Mount it with a key per template, so a selection starts
 * from that template's values. After a save it shows what the server stored (it sanitises the HTML).
 * `gated` (not on Pro): saving opens the upgrade prompt instead; a saved template is then read-only.
 */
export function TemplateEditor({
  template,
  gated,
  onUpgrade,
  onCreated,
  onDeleted,
  ref,
}: {
  template: EmailTemplate | undefined;
  gated: boolean;
  onUpgrade: () => void;
  onCreated: (created: EmailTemplate) => void;
  onDeleted: () => void;
  ref?: Ref<TemplateEditorHandle>;
}) {
  const [mode, setMode] = useState<EditorMode>('edit');
  const createTemplate = useCreateEmailTemplate();
  const updateTemplate = useUpdateEmailTemplate();
  const saving = createTemplate.isPending || updateTemplate.isPending;
  const readOnly = gated && !!template;

  const {
    register,
    control,
    handleSubmit,
    reset,
    getValues,
    setValue,
    setFocus,
    setError,
    formState: { errors, isSubmitted },
  } = useForm<EmailTemplateInput, unknown, EmailTemplateRequest>({
    resolver: zodResolver(emailTemplateSchema),
    defaultValues: formValuesOf(template),
  });
  const [subject = '', htmlContent = '', brandLogoUrl = ''] = useWatch({
    control,
    name: ['subject', 'htmlContent', 'brandLogoUrl'],
  });

  useImperativeHandle(ref, () => ({ focusName: () => setFocus('name') }), [setFocus]);

  const htmlField = register('htmlContent');
  const htmlTextarea = useRef<HTMLTextAreaElement | null>(null);

  /** Puts {{variable}} where the cursor is in the HTML content (or at its end). */
  const insertVariable = (variable: TemplateVariable) => {
    const token = `{{${variable}}}`;
    const textarea = htmlTextarea.current;
    const current = getValues('htmlContent') ?? '';
    const start = textarea?.selectionStart ?? current.length;
    const end = textarea?.selectionEnd ?? current.length;
    setValue('htmlContent', current.slice(0, start) + token + current.slice(end), {
      shouldDirty: true,
      shouldValidate: isSubmitted,
    });
    setMode('edit');
    requestAnimationFrame(() => {
      textarea?.focus();
      textarea?.setSelectionRange(start + token.length, start + token.length);
    });
  };

  /** A field the server refused (400 details) shows the server's words under it. */
  const showFieldProblems = (error: Error) => {
    const problems = fieldProblemsOf(error).filter((problem): problem is { path: EditableField; message: string } =>
      (editableFields as readonly string[]).includes(problem.path),
    );
    if (!problems.length) return;
    setMode('edit');
    for (const { path, message } of problems) setError(path, { type: 'server', message });
  };

  const save = (values: EmailTemplateRequest) => {
    if (template) {
      updateTemplate.mutate(
        { id: template.id, template: values },
        { onSuccess: (updated) => reset(formValuesOf(updated)), onError: showFieldProblems },
      );
    } else {
      createTemplate.mutate(values, { onSuccess: onCreated, onError: showFieldProblems });
    }
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    if (gated) {
      event.preventDefault();
      onUpgrade();
      return;
    }
    // An invalid field may be on the hidden edit tab: show it.
    void handleSubmit(save, () => setMode('edit'))(event);
  };

  // Read-only fields look it (the inputs are read-only through their field).
  const readOnlyLook = readOnly ? { bg: 'bg.muted' } : {};
  const title = template ? 'Edit Template' : 'Create Template';

  return (
    <Stack gap="4" minW="0">
      <Card.Root variant="outline" as="section" aria-labelledby="template-editor-title">
        <Card.Header>
          <Card.Title as="h2" id="template-editor-title">
            {title}
          </Card.Title>
          <Card.Description>
            {template
              ? `Last updated ${formatDateTime(template.updatedAt)}`
              : 'A new e-mail for the holders of the accounts you create.'}
          </Card.Description>
        </Card.Header>
        <Card.Body>
          <form onSubmit={onSubmit} noValidate aria-labelledby="template-editor-title">
            <Stack gap="5">
              {readOnly ? (
                <Alert.Root status="info" alignItems="center" flexWrap="wrap">
                  <Alert.Indicator />
                  <Alert.Content>
                    <Alert.Description>
                      Editing and creating templates is part of the Pro plan. On your plan you can preview and delete your templates.
                    </Alert.Description>
                  </Alert.Content>
                  <Button size="sm" colorPalette="blue" onClick={onUpgrade}>
                    <CrownIcon aria-hidden="true" />
                    Upgrade
                  </Button>
                </Alert.Root>
              ) : null}
              <Tabs.Root value={mode} onValueChange={(details) => setMode(details.value as EditorMode)} variant="enclosed" fitted>
                <Tabs.List aria-label="Editor mode" maxW={{ sm: 'xs' }}>
                  <Tabs.Trigger value="edit">
                    <PencilIcon aria-hidden="true" />
                    Edit
                  </Tabs.Trigger>
                  <Tabs.Trigger value="preview">
                    <EyeIcon aria-hidden="true" />
                    Preview
                  </Tabs.Trigger>
                </Tabs.List>
                <Tabs.Content value="edit" pt="5">
                  <Stack gap="4">
                    <FormField label="Template Name" error={errors.name?.message} readOnly={readOnly}>
                      <Input {...readOnlyLook} placeholder="e.g. Welcome e-mail" autoComplete="off" {...register('name')} />
                    </FormField>
                    <FormField
                      label="Email Subject"
                      error={errors.subject?.message}
                      readOnly={readOnly}
                      helperText="The preview fills in {{accountHolderName}}, {{projectName}} and {{companyName}}."
                    >
                      <Input {...readOnlyLook} placeholder="Welcome to {{companyName}}, {{accountHolderName}}" autoComplete="off" {...register('subject')} />
                    </FormField>
                    <FormField
                      label="Brand Logo URL"
                      error={errors.brandLogoUrl?.message}
                      readOnly={readOnly}
                      helperText="Optional. An https address; {{brandLogo}} shows it up to 200px wide."
                    >
                      <Input {...readOnlyLook} type="url" inputMode="url" placeholder="https://example.com/logo.png" autoComplete="off" {...register('brandLogoUrl')} />
                    </FormField>
                    <FormField
                      label="HTML Content"
                      error={errors.htmlContent?.message}
                      readOnly={readOnly}
                      helperText="Scripts, event handlers and javascript: links are removed when the template is saved."
                    >
                      <Textarea
                        {...htmlField}
                        ref={(element) => {
                          htmlField.ref(element);
                          htmlTextarea.current = element;
                        }}
                        {...readOnlyLook}
                        fontFamily="mono"
                        fontSize="sm"
                        rows={14}
                        resize="vertical"
                        spellCheck={false}
                        autoCapitalize="off"
                        autoCorrect="off"
                        placeholder={htmlPlaceholder}
                      />
                    </FormField>
                    <Stack gap="3">
                      {switches.map(({ name, label, help }) => (
                        <Controller
                          key={name}
                          control={control}
                          name={name}
                          render={({ field }) => (
                            <Stack gap="0.5">
                              <Switch.Root
                                colorPalette="blue"
                                name={field.name}
                                checked={!!field.value}
                                readOnly={readOnly}
                                onCheckedChange={(details) => field.onChange(details.checked)}
                              >
                                <Switch.HiddenInput onBlur={field.onBlur} aria-describedby={`template-${name}-help`} />
                                <Switch.Control />
                                <Switch.Label>{label}</Switch.Label>
                              </Switch.Root>
                              <Text id={`template-${name}-help`} fontSize="xs" color="fg.muted" ps="12">
                                {help}
                              </Text>
                            </Stack>
                          )}
                        />
                      ))}
                    </Stack>
                  </Stack>
                </Tabs.Content>
                <Tabs.Content value="preview" pt="5">
                  {mode === 'preview' ? (
                    <TemplatePreview subject={subject} htmlContent={htmlContent} brandLogoUrl={brandLogoUrl} />
                  ) : null}
                </Tabs.Content>
              </Tabs.Root>
              <Flex gap="3" justify="space-between" direction={{ base: 'column-reverse', sm: 'row' }}>
                {template ? <DeleteTemplateButton template={template} onDeleted={onDeleted} /> : <span />}
                <Button type="submit" colorPalette="blue" loading={saving} loadingText="Saving...">
                  {gated ? <CrownIcon aria-hidden="true" /> : <SaveIcon aria-hidden="true" />}
                  {template ? 'Update Template' : 'Create Template'}
                </Button>
              </Flex>
            </Stack>
          </form>
        </Card.Body>
      </Card.Root>
      <TemplateVariablesCard onInsert={readOnly ? undefined : insertVariable} />
    </Stack>
  );
}
