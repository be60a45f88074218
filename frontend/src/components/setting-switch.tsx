import { Stack, Switch, Text } from '@chakra-ui/react';

/**
 * One on/off setting: its label and description on the left, the switch on the right; the
 * description is the switch's accessible description. `idPrefix` keeps ids unique per page.
 */
export function SettingSwitch({
  idPrefix,
  name,
  label,
  description,
  checked,
  onChange,
}: {
  idPrefix: string;
  name: string;
  label: string;
  description: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const descriptionId = `${idPrefix}-${name}-description`;
  return (
    <Switch.Root
      colorPalette="blue"
      name={name}
      checked={checked}
      onCheckedChange={(details) => onChange(details.checked)}
      display="flex"
      w="full"
      justifyContent="space-between"
      alignItems="center"
      gap="4"
    >
      <Stack gap="0.5">
        <Switch.Label fontWeight="medium">{label}</Switch.Label>
        <Text fontSize="sm" color="fg.muted" id={descriptionId}>
          {description}
        </Text>
      </Stack>
      <Switch.HiddenInput role="switch" aria-describedby={descriptionId} />
      <Switch.Control flexShrink="0" />
    </Switch.Root>
  );
}
