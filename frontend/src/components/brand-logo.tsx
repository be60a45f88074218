import { Box, HStack, Text } from '@chakra-ui/react';
import { Layers } from 'lucide-react';

/** Logo mark and product name. */
export function BrandLogo({ size = 'md' }: { size?: 'md' | 'lg' }) {
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
        aria-hidden="true"
      >
        <Layers size={size === 'lg' ? 22 : 18} />
      </Box>
      <Text fontWeight="bold" fontSize={size === 'lg' ? 'xl' : 'lg'} letterSpacing="tight">
        BulkOnboard
      </Text>
    </HStack>
  );
}
