import { PHOTO_CONTENT_TYPE, PHOTO_MAX_BYTES } from '@shared/schemas/user';

/** Side of the square the photo is scaled to: sharp on a 2x screen at the largest avatar. */
const PHOTO_SIDE = 512;

/** Why a chosen file cannot be a photo (spec 5: images only, at most 5 MB), as a toast says it. */
export function photoFileProblem(file: File): { title: string; description: string } | undefined {
  if (!file.type.startsWith('image/')) return { title: 'Invalid file type', description: 'Please select an image file.' };
  if (file.size > PHOTO_MAX_BYTES) return { title: 'File too large', description: 'Please select an image smaller than 5MB.' };
  return undefined;
}

/**
 * The photo cropped to its centre square and scaled down, re-encoded as a JPEG: whatever was chosen
 * (an SVG with a script, a 20-megapixel PNG), only pixels are uploaded. A file the browser cannot
 * decode as an image throws.
 */
export async function squarePhoto(file: File): Promise<Blob> {
  const bitmap = await createImageBitmap(file).catch(() => {
    throw new Error('This file is not an image the browser can read.');
  });
  try {
    const side = Math.min(bitmap.width, bitmap.height);
    const target = Math.min(PHOTO_SIDE, side);
    const canvas = document.createElement('canvas');
    canvas.width = target;
    canvas.height = target;
    const context = canvas.getContext('2d');
    if (!context) throw new Error('This browser cannot prepare the photo.');
    // A transparent image gets a white background, not JPEG's black.
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, target, target);
    context.drawImage(bitmap, (bitmap.width - side) / 2, (bitmap.height - side) / 2, side, side, 0, 0, target, target);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('This browser cannot prepare the photo.'))), PHOTO_CONTENT_TYPE, 0.88),
    );
  } finally {
    bitmap.close();
  }
}
