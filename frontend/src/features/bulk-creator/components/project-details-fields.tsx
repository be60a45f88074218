import { Input, NativeSelect, SimpleGrid, Stack, Textarea } from '@chakra-ui/react';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { accountTypes } from '@shared/schemas/bulk';
import { FormField } from '../../../components/form-field';

type Field = 'name' | 'platformUrl' | 'accountType' | 'expirationDate' | 'description';

/**
 * A project's own fields, as the bulk creator asks for them and the project page's Edit changes
 * them: name, platform URL, account type, expiration date and description, each registered by the
 * caller's form (their rules and messages are the shared schemas').
 */
export function ProjectDetailsFields({ register, errors }: { register: Record<Field, UseFormRegisterReturn>; errors: Partial<Record<Field, string>> }) {
  return (
    <Stack gap="4">
      <SimpleGrid columns={{ base: 1, md: 2 }} gap="4">
        <FormField label="Project name" error={errors.name}>
          <Input placeholder="Spring 2026 onboarding" autoComplete="off" {...register.name} />
        </FormField>
        <FormField label="Platform URL (optional)" error={errors.platformUrl}>
          <Input type="url" placeholder="https://lms.example.com" {...register.platformUrl} />
        </FormField>
        <FormField label="Account type" error={errors.accountType}>
          <NativeSelect.Root>
            <NativeSelect.Field {...register.accountType}>
              {accountTypes.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </FormField>
        <FormField label="Expiration date (optional)" error={errors.expirationDate}>
          <Input type="date" {...register.expirationDate} />
        </FormField>
      </SimpleGrid>
      <FormField label="Description (optional)" error={errors.description}>
        <Textarea rows={2} autoresize {...register.description} />
      </FormField>
    </Stack>
  );
}
