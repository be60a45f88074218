import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The requests a process's DynamoDB client sends, counted by operation (a deterministic measure
 * of a job's table work, where wall times and CPU move with the machine's load): for each, the
 * requests, the items it read (returned by a Get, Query, BatchGet) and wrote (a Put, Update,
 * Delete, each item of a BatchWrite or a transaction), and the bytes sent and received.
 * `requestCounter(client)` adds the counting middleware; `read()` gives the counts since the
 * last `reset()`.
 */
export type RequestCounts = Record<string, { requests: number; read: number; written: number; sent: number; received: number }>;

export function requestCounter(client: DynamoDBDocumentClient): { reset: () => void; read: () => RequestCounts } {
  let counts: RequestCounts = {};
  const of = (name: string) => (counts[name] ??= { requests: 0, read: 0, written: 0, sent: 0, received: 0 });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName ?? 'unknown').replace(/Command$/, '');
      const input = args.input as Record<string, unknown>;
      // Single-item operations by the kind of item (its sort key's first word): which items take the writes.
      const key = (input.Key ?? input.Item) as { SK?: unknown } | undefined;
      const name = typeof key?.SK === 'string' ? `${operation} ${key.SK.split('#')[0]}` : operation;
      const count = of(name);
      (context as { benchCountName?: string }).benchCountName = name;
      count.requests += 1;
      if (operation === 'BatchWriteItem') count.written += Object.values((input.RequestItems ?? {}) as Record<string, unknown[]>).reduce((n, list) => n + list.length, 0);
      else if (operation === 'TransactWriteItems') count.written += ((input.TransactItems ?? []) as unknown[]).length;
      else if (operation === 'PutItem' || operation === 'UpdateItem' || operation === 'DeleteItem') count.written += 1;
      const result = await next(args);
      const output = result.output as Record<string, unknown>;
      if (Array.isArray(output.Items)) count.read += output.Items.length;
      if (output.Item) count.read += 1;
      if (output.Responses && operation === 'BatchGetItem') count.read += Object.values(output.Responses as Record<string, unknown[]>).reduce((n, list) => n + list.length, 0);
      return result;
    },
    { step: 'initialize', name: 'benchRequestCounter' },
  );
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = (context as { benchCountName?: string }).benchCountName ?? 'unknown';
      const body = (args.request as { body?: unknown }).body;
      of(name).sent += typeof body === 'string' ? Buffer.byteLength(body) : body instanceof Uint8Array ? body.byteLength : 0;
      const result = await next(args);
      const length = Number((result.response as { headers?: Record<string, string> }).headers?.['content-length'] ?? 0);
      of(name).received += Number.isFinite(length) ? length : 0;
      return result;
    },
    { step: 'finalizeRequest', name: 'benchRequestBytes' },
  );
  return {
    reset: () => {
      counts = {};
    },
    read: () => structuredClone(counts),
  };
}

export function requestText(counts: RequestCounts): string {
  const rows = Object.entries(counts).sort(([a], [b]) => a.localeCompare(b));
  const total = rows.reduce((t, [, c]) => ({ requests: t.requests + c.requests, read: t.read + c.read, written: t.written + c.written, sent: t.sent + c.sent, received: t.received + c.received }), { requests: 0, read: 0, written: 0, sent: 0, received: 0 });
  const kb = (bytes: number) => `${Math.round(bytes / 1024).toLocaleString('en-US')} KB`;
  return [...rows, ['total', total] as const].map(([name, c]) => `${name} ${c.requests.toLocaleString('en-US')} (${c.read.toLocaleString('en-US')} items read, ${c.written.toLocaleString('en-US')} written, ${kb(c.sent)} sent, ${kb(c.received)} received)`).join('; ');
}
