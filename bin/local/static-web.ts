import fs from 'node:fs';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Serves a built web app like the CloudFront distribution does: files, else index.html. */
export function staticWeb(root: string) {
  const index = path.join(root, 'index.html');
  if (!fs.existsSync(index)) throw new Error(`${index} is missing: run \`npm run build\` first`);
  return (req: IncomingMessage, res: ServerResponse) => {
    const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    const file = path.join(root, path.normalize(pathname));
    const inside = file.startsWith(root + path.sep);
    const target = inside && fs.existsSync(file) && fs.statSync(file).isFile() ? file : index;
    res.writeHead(200, {
      'content-type': types[path.extname(target)] ?? 'application/octet-stream',
      'cache-control': target === index ? 'no-cache' : 'public, max-age=31536000, immutable',
    });
    fs.createReadStream(target).pipe(res);
  };
}
