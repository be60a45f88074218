import { IconButton, Menu } from '@chakra-ui/react';
import { MonitorIcon, MoonIcon, SunIcon } from 'lucide-react';
import { useTheme } from 'next-themes';

const themes = [
  { value: 'light', label: 'Light', icon: SunIcon },
  { value: 'dark', label: 'Dark', icon: MoonIcon },
  { value: 'system', label: 'System', icon: MonitorIcon },
] as const;

/** Light / Dark / System; next-themes keeps the choice in localStorage across reloads. */
export function ThemeMenu() {
  const { theme, resolvedTheme, setTheme } = useTheme();
  const CurrentIcon = resolvedTheme === 'dark' ? MoonIcon : SunIcon;

  return (
    <Menu.Root positioning={{ placement: 'bottom-end' }}>
      <Menu.Trigger asChild>
        <IconButton aria-label="Theme" variant="ghost" size="sm">
          <CurrentIcon />
        </IconButton>
      </Menu.Trigger>
      {/* Not portalled: the open menu stays inside the top bar's banner landmark (axe: region). */}
      <Menu.Positioner>
        <Menu.Content minW="40">
          <Menu.RadioItemGroup value={theme ?? 'light'} onValueChange={(details) => setTheme(details.value)}>
            {themes.map(({ value, label, icon: Icon }) => (
              <Menu.RadioItem key={value} value={value}>
                <Icon size={16} aria-hidden="true" />
                {label}
                <Menu.ItemIndicator />
              </Menu.RadioItem>
            ))}
          </Menu.RadioItemGroup>
        </Menu.Content>
      </Menu.Positioner>
    </Menu.Root>
  );
}
