import { Button } from '@chakra-ui/react';
import { EyeIcon, EyeOffIcon } from 'lucide-react';

/** The 'Show Passwords' / 'Hide Passwords' toggle of account lists. */
export function PasswordVisibilityButton({
  shown,
  onToggle,
  loading,
}: {
  shown: boolean;
  onToggle: () => void;
  loading?: boolean;
}) {
  return (
    <Button variant="outline" size="sm" onClick={onToggle} aria-pressed={shown} loading={loading}>
      {shown ? <EyeOffIcon aria-hidden="true" /> : <EyeIcon aria-hidden="true" />}
      {shown ? 'Hide Passwords' : 'Show Passwords'}
    </Button>
  );
}
