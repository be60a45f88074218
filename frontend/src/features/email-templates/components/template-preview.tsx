import { Box, chakra, Stack, Text } from '@chakra-ui/react';
import { useMemo } from 'react';
import { useSecuritySettings } from '../../security/api/security-settings-api';
import { previewDocument, previewEmail } from '../lib/template-preview';
import { browserRenderTools } from '../lib/render-tools';

/**
 * The e-mail as an account holder would get it, with sample values (spec 2). The HTML is shown in
 * a frame sandboxed without any permission (sandbox=""): no script in it runs, it cannot reach
 * this page, and it has its own unique origin. The frame keeps a white page in both themes, as
 * most mail clients show e-mails.
 */
export function TemplatePreview({ subject, htmlContent, brandLogoUrl }: { subject: string; htmlContent: string; brandLogoUrl: string }) {
  // The password-change sentence only when the Security setting is on, as the e-mails have it.
  const requirePasswordChange = useSecuritySettings().data?.requirePasswordChange === true;
  // The shared renderer, as the mail worker sends it (sanitised, values escaped).
  const rendered = useMemo(
    () => previewEmail({ subject, htmlContent, brandLogoUrl }, browserRenderTools, { requirePasswordChange }),
    [subject, htmlContent, brandLogoUrl, requirePasswordChange],
  );
  const srcDoc = useMemo(() => previewDocument(rendered.html), [rendered.html]);
  const shownSubject = rendered.subject;
  return (
    <Stack gap="3">
      <Box borderWidth="1px" borderRadius="md" px="3" py="2" bg="bg.muted">
        <Text fontSize="xs" color="fg.muted" fontWeight="medium">
          Subject
        </Text>
        <Text fontWeight="semibold" wordBreak="break-word" data-testid="subject-preview">
          {shownSubject || <chakra.span color="fg.subtle">No subject yet</chakra.span>}
        </Text>
      </Box>
      {htmlContent.trim() ? (
        <chakra.iframe
          title="Email preview"
          sandbox=""
          srcDoc={srcDoc}
          referrerPolicy="no-referrer"
          w="full"
          h={{ base: '24rem', md: '30rem' }}
          borderWidth="1px"
          borderColor="border.emphasized"
          borderRadius="md"
          bg="white"
        />
      ) : (
        <Box borderWidth="1px" borderStyle="dashed" borderRadius="md" p="8" textAlign="center">
          <Text color="fg.muted">Nothing to preview yet. Write the HTML content in Edit.</Text>
        </Box>
      )}
      {htmlContent.trim() ? (
        <chakra.details borderWidth="1px" borderRadius="md" px="3" py="2">
          <chakra.summary cursor="pointer" fontSize="sm" fontWeight="medium">
            Plain-text version
          </chakra.summary>
          <chakra.pre mt="2" fontSize="xs" whiteSpace="pre" overflowX="auto" data-testid="text-preview">
            {rendered.text}
          </chakra.pre>
        </chakra.details>
      ) : null}
      <Text fontSize="xs" color="fg.muted">
        Sample values fill the variables. Scripts never run in e-mails or in this preview.
      </Text>
    </Stack>
  );
}
