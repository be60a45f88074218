import { Box, HStack, Text } from '@chakra-ui/react';
import { Layers } from 'lucide-react';

/** Logo mark and product name; `compact` hides the name on phones (the top bar is narrow there). */
export function BrandLogo({ size = 'md', compact = false }: { size?: 'md' | 'lg'; compact?: boolean }) {
  const box = size === 'lg' ? '10' : '8';
  return (
    <HStack gap="2">
      <Box
        w={box}
        h={box}
        borderRadius="lg"
        bg="blue.solid"
        color="blue.contrast"
        display="flex"
        alignItems="center"
        justifyContent="center"
        flexShrink="0"
        aria-hidden="true"
      >
        <Layers size={size === 'lg' ? 22 : 18} />
      </Box>
      <Text
        fontWeight="bold"
        fontSize={size === 'lg' ? 'xl' : 'lg'}
        letterSpacing="tight"
        hideBelow={compact ? 'sm' : undefined}
      >
        BulkOnboard
      </Text>
    </HStack>
  );
}
