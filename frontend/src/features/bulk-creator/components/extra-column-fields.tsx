import { Button, Field, HStack, Input, Stack, Tag, Text } from '@chakra-ui/react';
import { PlusIcon } from 'lucide-react';
import { useId, useState, type ChangeEvent, type KeyboardEvent } from 'react';
import { ATTRIBUTE_VALUE_MAX, MAX_ATTRIBUTES } from '@shared/schemas/attributes';
import { FormField } from '../../../components/form-field';
import { newExtraColumn, type ExtraColumn } from '../lib/extra-columns';

/**
 * The extra columns of a manual entry: the columns added so far (each removable) and 'Add column'
 * (a name, then a value per person in each row: ExtraColumnInputs). The same limits as a file:
 * 25 columns, 256 characters a value, names normalised as a header's are.
 */
export function ExtraColumnsBar({ columns, onChange, disabled = false }: { columns: readonly ExtraColumn[]; onChange: (columns: ExtraColumn[]) => void; disabled?: boolean }) {
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string>();
  const id = useId();
  const add = () => {
    const made = newExtraColumn(name, columns);
    if ('problem' in made) {
      setProblem(made.problem);
      return;
    }
    onChange([...columns, made.column]);
    setName('');
    setProblem(undefined);
    setNaming(false);
  };
  // Enter adds the column instead of submitting the form around it; Escape gives up.
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      add();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      setNaming(false);
      setProblem(undefined);
    }
  };
  return (
    <Stack gap="2">
      {columns.length ? (
        <HStack gap="2" wrap="wrap" role="list" aria-label="Extra columns">
          <Text fontSize="sm" color="fg.muted">
            Extra columns:
          </Text>
          {columns.map((column) => (
            <Tag.Root key={column.key} role="listitem" size="lg" variant="subtle">
              <Tag.Label>{column.label}</Tag.Label>
              <Tag.EndElement>
                <Tag.CloseTrigger aria-label={`Remove the column ${column.label}`} disabled={disabled} onClick={() => onChange(columns.filter((c) => c.key !== column.key))} />
              </Tag.EndElement>
            </Tag.Root>
          ))}
        </HStack>
      ) : null}
      {naming ? (
        <Field.Root invalid={!!problem}>
          <Field.Label htmlFor={`${id}-name`}>Column name</Field.Label>
          <HStack gap="2" align="flex-start" wrap="wrap">
            <Input id={`${id}-name`} size="sm" maxW="64" autoFocus autoComplete="off" placeholder="Department" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} onKeyDown={onKeyDown} />
            <Button type="button" size="sm" colorPalette="blue" variant="subtle" onClick={add}>
              Add
            </Button>
            <Button
              type="button"
              size="sm"
              variant="ghost"
              onClick={() => {
                setNaming(false);
                setProblem(undefined);
              }}
            >
              Cancel
            </Button>
          </HStack>
          {problem ? <Field.ErrorText>{problem}</Field.ErrorText> : <Field.HelperText>A value for each person then goes in their row (at most {ATTRIBUTE_VALUE_MAX} characters).</Field.HelperText>}
        </Field.Root>
      ) : (
        <HStack>
          <Button type="button" size="sm" variant="outline" disabled={disabled || columns.length >= MAX_ATTRIBUTES} onClick={() => setNaming(true)}>
            <PlusIcon aria-hidden="true" />
            Add column
          </Button>
        </HStack>
      )}
    </Stack>
  );
}

/** One person's value of each extra column ('Department, person 2'); `labelled`: each under its visible label (a form's rows). */
export function ExtraColumnInputs({
  columns,
  values,
  onChange,
  person,
  onKeyDown,
  register,
  labelled = false,
}: {
  columns: readonly ExtraColumn[];
  person: string;
  values?: Readonly<Record<string, string>>;
  onChange?: (key: string, value: string) => void;
  onKeyDown?: (event: KeyboardEvent) => void;
  /** A form library's own binding of a column's input (react-hook-form's register), instead of values/onChange. */
  register?: (key: string) => Record<string, unknown>;
  labelled?: boolean;
}) {
  if (!columns.length) return null;
  return (
    <>
      {columns.map((column) => {
        const input = (
          <Input
            key={column.key}
            aria-label={labelled ? undefined : `${column.label}, ${person}`}
            placeholder={labelled ? undefined : column.label}
            autoComplete="off"
            maxLength={ATTRIBUTE_VALUE_MAX}
            onKeyDown={onKeyDown}
            {...(register ? register(column.key) : { value: values?.[column.key] ?? '', onChange: (e: ChangeEvent<HTMLInputElement>) => onChange?.(column.key, e.target.value) })}
          />
        );
        return labelled ? (
          <FormField key={column.key} label={column.label}>
            {input}
          </FormField>
        ) : (
          input
        );
      })}
    </>
  );
}
