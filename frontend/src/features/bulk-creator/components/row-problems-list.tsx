import { Box, List, Text } from '@chakra-ui/react';

export interface RowProblem {
  /** What the user knows the row by: "Row 12" (file line) or "Account 3" (manual entry). */
  label: string;
  field?: 'firstName' | 'lastName' | 'email';
  message: string;
}

const fieldNames = { firstName: 'First name', lastName: 'Last name', email: 'Email' } as const;

export const PROBLEMS_SHOWN = 20;

/** The first 20 problems, then "and N more". */
export function RowProblemsList({ problems, label }: { problems: RowProblem[]; label: string }) {
  const shown = problems.slice(0, PROBLEMS_SHOWN);
  const more = problems.length - shown.length;
  return (
    <Box>
      <List.Root aria-label={label} gap="1" variant="plain" fontSize="sm" maxH="48" overflowY="auto" pr="1">
        {shown.map((problem, index) => (
          <List.Item key={`${problem.label}-${index}`} display="block" wordBreak="break-word">
            <Text as="span" fontWeight="medium">
              {problem.label}
            </Text>{' '}
            {problem.field ? (
              <Text as="span" color="fg.muted">
                {fieldNames[problem.field]}:{' '}
              </Text>
            ) : null}
            <Text as="span" color="fg.error">
              {problem.message}
            </Text>
          </List.Item>
        ))}
      </List.Root>
      {more > 0 ? (
        <Text fontSize="sm" color="fg.muted" mt="1">
          and {more.toLocaleString()} more
        </Text>
      ) : null}
    </Box>
  );
}
