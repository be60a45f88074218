import { Box, Button, Menu, Text } from '@chakra-ui/react';
import { CreditCardIcon, LogOutIcon, SettingsIcon, UserIcon } from 'lucide-react';
import { useNavigate } from 'react-router';
import { UserAvatar } from '../../components/user-avatar';
import { fullNameOf, useUser } from '../../lib/user-api';
import { useSignOut } from '../../lib/use-sign-out';

export function UserMenu() {
  const user = useUser();
  const navigate = useNavigate();
  const signOut = useSignOut();
  const name = fullNameOf(user) || 'User';

  const onSelect = (value: string) => {
    if (value === 'profile') void navigate('/profile');
    else if (value === 'settings') void navigate('/settings');
    else if (value === 'billing') void navigate('/settings?tab=subscription');
    else if (value === 'sign-out') void signOut();
  };

  return (
    <Menu.Root positioning={{ placement: 'bottom-end' }} onSelect={(details) => onSelect(details.value)}>
      <Menu.Trigger asChild>
        {/* Named by its content, so the name shown is part of it (WCAG 2.5.3, label in name). */}
        <Button variant="ghost" size="sm" px="1.5" gap="2">
          <span aria-hidden="true">
            <UserAvatar user={user} size="xs" />
          </span>
          <Text as="span" hideBelow="md" maxW="40" truncate>
            {name}
          </Text>
          <Text as="span" srOnly>
            User menu
          </Text>
        </Button>
      </Menu.Trigger>
      {/* Not portalled: the open menu stays inside the top bar's banner landmark (axe: region). */}
      <Menu.Positioner>
        <Menu.Content minW="52">
          <Box px="2" py="1.5">
            <Text fontSize="sm" fontWeight="medium" truncate>
              {name}
            </Text>
            <Text fontSize="xs" color="fg.muted" truncate>
              {user.email}
            </Text>
          </Box>
          <Menu.Separator />
          <Menu.Item value="profile">
            <UserIcon size={16} aria-hidden="true" />
            Profile
          </Menu.Item>
          <Menu.Item value="settings">
            <SettingsIcon size={16} aria-hidden="true" />
            Settings
          </Menu.Item>
          <Menu.Item value="billing">
            <CreditCardIcon size={16} aria-hidden="true" />
            Billing
          </Menu.Item>
          <Menu.Separator />
          <Menu.Item value="sign-out" color="fg.error" _highlighted={{ bg: 'bg.error', color: 'fg.error' }}>
            <LogOutIcon size={16} aria-hidden="true" />
            Sign out
          </Menu.Item>
        </Menu.Content>
      </Menu.Positioner>
    </Menu.Root>
  );
}
