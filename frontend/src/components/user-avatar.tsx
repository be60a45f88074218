import { Avatar } from '@chakra-ui/react';
import { initialsOf, type User } from '@shared/schemas/user';

/** The user's photo, or their initials ('U' without names). */
export function UserAvatar({ user, size = 'sm' }: { user: User; size?: 'xs' | 'sm' | 'md' | 'lg' | 'xl' | '2xl' }) {
  return (
    <Avatar.Root size={size} colorPalette="blue">
      <Avatar.Fallback>{initialsOf(user.firstName, user.lastName)}</Avatar.Fallback>
      {user.profileImageUrl ? <Avatar.Image src={user.profileImageUrl} alt="" /> : null}
    </Avatar.Root>
  );
}
