import { Stack, Switch, Text } from '@chakra-ui/react';
import { useLayoutEffect, useReducer, useRef } from 'react';

/**
 * One on/off setting: its label and description on the left, the switch on the right; the
 * description is the switch's accessible description. `idPrefix` keeps ids unique per page.
 *
 * `checked` is the truth: an owner may refuse a turn (two-factor opens a dialog and changes only
 * once a code is accepted). Ark's switch renders its input with `defaultChecked` and puts it back
 * only when its own value changes, so a refused click left the native input checked while the
 * switch showed off: a screen reader heard "on" and the next click (unchecking the input) was no
 * change to report. After every turn the input is set back to `checked` here.
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
  const input = useRef<HTMLInputElement>(null);
  // A turn always renders again, even when the owner's `checked` stays as it was.
  const [turns, countTurn] = useReducer((count: number) => count + 1, 0);
  useLayoutEffect(() => {
    if (input.current && input.current.checked !== checked) input.current.checked = checked;
  }, [checked, turns]);
  return (
    <Switch.Root
      colorPalette="blue"
      name={name}
      checked={checked}
      onCheckedChange={(details) => {
        countTurn();
        onChange(details.checked);
      }}
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
      <Switch.HiddenInput ref={input} role="switch" aria-describedby={descriptionId} />
      <Switch.Control flexShrink="0" />
    </Switch.Root>
  );
}
