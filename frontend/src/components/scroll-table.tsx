import { Box, Table, Text, type TableScrollAreaProps } from '@chakra-ui/react';
import { useEffect, useRef, useState } from 'react';

interface Edges {
  /** Columns hidden to the left (scrolled). */
  start: boolean;
  /** Columns hidden to the right. */
  end: boolean;
}

const edgeShade = {
  position: 'absolute',
  insetBlock: '0',
  width: '6',
  pointerEvents: 'none',
  '--shade': 'colors.blackAlpha.300',
  _dark: { '--shade': 'colors.blackAlpha.700' },
} as const;

/**
 * Its text wraps like any text (see whiteSpace below). A table still wider than its box says so: a shade on each edge with columns beyond it, and 'Scroll for
 * more' above it while columns are hidden to the right (on a phone a table otherwise just looks
 * cut off). While it scrolls, the box can be focused and scrolled with the keyboard (a named
 * region, WCAG 2.1.1).
 */
export function ScrollTable({ label, children, ...props }: TableScrollAreaProps & { label: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [edges, setEdges] = useState<Edges>({ start: false, end: false });

  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => {
      const hidden = box.scrollWidth - box.clientWidth;
      const start = box.scrollLeft > 1;
      const end = box.scrollLeft < hidden - 1;
      setEdges((old) => (old.start === start && old.end === end ? old : { start, end }));
    };
    measure();
    // The table grows as rows load and the box changes with the window.
    const resize = new ResizeObserver(measure);
    resize.observe(box);
    if (box.firstElementChild) resize.observe(box.firstElementChild);
    box.addEventListener('scroll', measure, { passive: true });
    return () => {
      resize.disconnect();
      box.removeEventListener('scroll', measure);
    };
  }, []);

  const scrolls = edges.start || edges.end;
  return (
    <Box>
      {edges.end ? (
        <Text aria-hidden="true" fontSize="xs" color="fg.muted" textAlign="end" mb="1">
          Scroll for more →
        </Text>
      ) : null}
      <Box position="relative">
        <Table.ScrollArea
          ref={ref}
          {...props}
          {...(scrolls ? { tabIndex: 0, role: 'region', 'aria-label': `${label} (scrolls sideways)` } : {})}
          focusVisibleRing="inside"
          // Chakra's scroll area sets white-space: nowrap, which every cell inherits: no text could
          // wrap, so a table was as wide as its longest lines (Free vs Pro cut at 390 px, a bounce
          // reason pushing a project's Send column out at 1280 px). Cells wrap; those that must
          // not say so themselves.
          whiteSpace="normal"
        >
          {children}
        </Table.ScrollArea>
        {edges.start ? (
          <Box aria-hidden="true" data-edge="start" css={edgeShade} left="0" bgGradient="to-r" gradientFrom="var(--shade)" gradientTo="transparent" />
        ) : null}
        {edges.end ? (
          <Box aria-hidden="true" data-edge="end" css={edgeShade} right="0" bgGradient="to-l" gradientFrom="var(--shade)" gradientTo="transparent" />
        ) : null}
      </Box>
    </Box>
  );
}
