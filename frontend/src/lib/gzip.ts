/** Whether this browser can gzip (CompressionStream: every current browser). */
export const canGzip = (): boolean => typeof CompressionStream === 'function';

/** Gzips text in the browser and returns it as base64 (for a JSON field). */
export async function gzipBase64(text: string): Promise<string> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  let binary = '';
  // In slices: String.fromCharCode takes a limited number of arguments.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
