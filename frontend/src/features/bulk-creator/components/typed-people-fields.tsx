import { Button, Fieldset, HStack, IconButton, Input, SimpleGrid, Stack } from '@chakra-ui/react';
import { PlusIcon, Trash2Icon } from 'lucide-react';
import { useState, type KeyboardEvent } from 'react';

import { typedPeopleCsv, type TypedPerson as Person } from '../lib/typed-people';
import type { ExtraColumn } from '../lib/extra-columns';
import { ExtraColumnInputs, ExtraColumnsBar } from './extra-column-fields';

const emptyPerson: Person = { firstName: '', lastName: '', email: '' };

/** The typed people as a CSV file: the same reader, checks and preview as a chosen file. */
const typedPeopleFile = (people: readonly Person[], columns: readonly ExtraColumn[]): File => new File([typedPeopleCsv(people, columns)], 'People typed in.csv', { type: 'text/csv' });

/**
 * Manual entry inside the Add people dialog: people typed in, then 'Check these people' reads
 * them as a file would be read, so the rows are checked and previewed (usernames included) by
 * the same code before anything is sent.
 */
export function TypedPeopleFields({ onFile, busy }: { onFile: (file: File) => void; busy: boolean }) {
  const [people, setPeople] = useState<Person[]>([emptyPerson]);
  const [columns, setColumns] = useState<ExtraColumn[]>([]);
  const update = (index: number, field: 'firstName' | 'lastName' | 'email', value: string) => setPeople((current) => current.map((person, i) => (i === index ? { ...person, [field]: value } : person)));
  const updateColumn = (index: number, key: string, value: string) => setPeople((current) => current.map((person, i) => (i === index ? { ...person, attributes: { ...person.attributes, [key]: value } } : person)));
  const typed = people.filter((p) => p.firstName.trim() || p.lastName.trim() || p.email.trim());
  // Enter in a typed row checks them instead of submitting the dialog's form.
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    if (typed.length) onFile(typedPeopleFile(typed, columns));
  };

  return (
    <Fieldset.Root>
      <Fieldset.Legend>Type the people in</Fieldset.Legend>
      <Stack gap="2" data-testid="typed-people">
        {people.map((person, index) => (
          <HStack key={index} gap="2" align="flex-end">
            <SimpleGrid columns={{ base: 1, sm: 3 }} gap="2" flex="1">
              <Input aria-label={`First name, person ${index + 1}`} placeholder="First name" value={person.firstName} onChange={(e) => update(index, 'firstName', e.target.value)} onKeyDown={onKeyDown} />
              <Input aria-label={`Last name, person ${index + 1}`} placeholder="Last name" value={person.lastName} onChange={(e) => update(index, 'lastName', e.target.value)} onKeyDown={onKeyDown} />
              <Input aria-label={`Email, person ${index + 1}`} placeholder="Email" type="email" value={person.email} onChange={(e) => update(index, 'email', e.target.value)} onKeyDown={onKeyDown} />
              <ExtraColumnInputs columns={columns} person={`person ${index + 1}`} values={person.attributes} onChange={(key, value) => updateColumn(index, key, value)} onKeyDown={onKeyDown} />
            </SimpleGrid>
            <IconButton
              type="button"
              variant="ghost"
              aria-label={`Remove person ${index + 1}`}
              disabled={people.length === 1}
              onClick={() => setPeople((current) => current.filter((_, i) => i !== index))}
            >
              <Trash2Icon />
            </IconButton>
          </HStack>
        ))}
        <ExtraColumnsBar columns={columns} onChange={setColumns} disabled={busy} />
        <HStack gap="2" wrap="wrap">
          <Button type="button" size="sm" variant="outline" onClick={() => setPeople((current) => [...current, emptyPerson])}>
            <PlusIcon aria-hidden="true" />
            Add another person
          </Button>
          <Button type="button" size="sm" colorPalette="blue" variant="subtle" disabled={typed.length === 0 || busy} onClick={() => onFile(typedPeopleFile(typed, columns))}>
            Check these people
          </Button>
        </HStack>
      </Stack>
    </Fieldset.Root>
  );
}
