/**
 * Splitting CSV text into records (RFC 4180, read leniently) so that a malformed quote costs
 * one line, never the rest of the file (issue 9).
 *
 * A general CSV parser (papaparse included) that meets a quote it cannot close keeps looking for
 * the close to the end of the file, so one stray quote swallows every row after it. Here a record
 * whose quoting is malformed is cut back to the line it starts on, reported as such, and reading
 * goes on from the next line. A correctly closed quoted field may still span lines.
 *
 * The rules, those papaparse follows for well-formed files:
 * - a quote opens a quoted field only as the field's first character; elsewhere in an unquoted
 *   field it is an ordinary character (`O"Brien`, `say "hi"`);
 * - inside a quoted field `""` is one quote; the field closes at a quote followed by spaces or
 *   tabs at most and then the delimiter, a line end or the end of the text;
 * - malformed: a quoted field never closed, or text after its closing quote (`"a"b`).
 */

const QUOTE = 0x22;
const NEWLINE = 0x0a;
const SPACE = 0x20;
const TAB = 0x09;

/**
 * Takes one record: its cells, the 1-based line it starts on, and whether its quoting was
 * malformed (its cells are then its first line split at the delimiter, quotes as typed).
 * Returning false stops the reading.
 */
export type CsvRecordHandler = (cells: string[], line: number, badQuote: boolean) => boolean;

/**
 * A quoted record may span lines, but not more than this many characters from its start: a quote
 * that does not close within them is malformed (its line is rejected alone). It bounds what a
 * streaming reader must hold while it waits for a quote to close, and the same bound applies when
 * the whole text is read at once, so both read every file alike.
 */
export const MAX_QUOTED_RECORD_CHARS = 1024 * 1024;

/** A record that reaches the end of the text read so far: more text may complete it. */
const MORE = 'more' as const;

/**
 * Reads `text` (line ends already '\n') record by record with a one-character delimiter,
 * handing each to `onRecord` without keeping them. An empty last line gives no record.
 */
export function readCsvRecords(text: string, delimiter: string, onRecord: CsvRecordHandler): void {
  readRecordsFrom(text, delimiter, onRecord, 1, true);
}

/**
 * Reading CSV text that arrives in pieces (an S3 object's stream): each piece is read as far as
 * its complete records go, the rest is kept for the next; the records and line numbers are
 * exactly those readCsvRecords gives for the whole text. Holds at most one record in waiting
 * (and never more than MAX_QUOTED_RECORD_CHARS of a quoted one).
 */
export function csvRecordStream(delimiter: string, onRecord: CsvRecordHandler): { push(text: string): boolean; end(): void } {
  let pending = '';
  let line = 1;
  let stopped = false;
  return {
    /** Returns false once the handler has stopped the reading. */
    push(text) {
      if (stopped) return false;
      pending += text;
      // Nothing can complete before a line end arrives (a record ends at one, or at the end).
      if (!text.includes('\n')) return true;
      const read = readRecordsFrom(pending, delimiter, onRecord, line, false);
      stopped = read.stopped;
      line = read.line;
      pending = pending.slice(read.position);
      return !stopped;
    },
    end() {
      if (!stopped && pending) readRecordsFrom(pending, delimiter, onRecord, line, true);
      pending = '';
    },
  };
}

/**
 * The reader behind both: from the start of `text`, numbering lines from `firstLine`. Not
 * `final`, it stops before a record that reaches the end of the text (more may follow) and says
 * where: that record is read again with the text that follows.
 */
function readRecordsFrom(text: string, delimiter: string, onRecord: CsvRecordHandler, firstLine: number, final: boolean): { position: number; line: number; stopped: boolean } {
  const length = text.length;
  let position = 0;
  let line = firstLine;
  // The first quote at or after `position` (-1: none left); most lines hold none and take the fast path.
  let nextQuote = text.indexOf('"');
  while (position < length) {
    let lineEnd = text.indexOf('\n', position);
    if (lineEnd < 0) {
      if (!final) break;
      lineEnd = length;
    }
    if (nextQuote !== -1 && nextQuote < position) nextQuote = text.indexOf('"', position);

    if (nextQuote === -1 || nextQuote >= lineEnd) {
      if (!onRecord(text.slice(position, lineEnd).split(delimiter), line, false)) return { position, line, stopped: true };
      position = lineEnd + 1;
      line++;
      continue;
    }

    const record = readQuotedRecord(text, position, delimiter.charCodeAt(0), final);
    if (record === MORE) break;
    if (record) {
      if (!onRecord(record.cells, line, false)) return { position, line, stopped: true };
      line += countNewlines(text, position, record.end);
      position = record.end;
    } else {
      if (!onRecord(text.slice(position, lineEnd).split(delimiter), line, true)) return { position, line, stopped: true };
      position = lineEnd + 1;
      line++;
    }
  }
  return { position: Math.min(position, length), line, stopped: false };
}

/**
 * One record from `start`, in a line that holds a quote: the cells and the index after the
 * record's line end, or undefined when its quoting is malformed; MORE (not `final`) when the
 * record reaches the end of the text before it could be decided.
 */
function readQuotedRecord(text: string, start: number, delimiterCode: number, final: boolean): { cells: string[]; end: number } | undefined | typeof MORE {
  const length = text.length;
  const limit = start + MAX_QUOTED_RECORD_CHARS;
  const cells: string[] = [];
  let position = start;
  for (;;) {
    if (text.charCodeAt(position) === QUOTE) {
      let value = '';
      let from = position + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote > limit || (quote < 0 && length > limit)) return undefined; // not closed within the bound
        if (quote < 0) return final ? undefined : MORE; // never closed (so far)
        if (text.charCodeAt(quote + 1) === QUOTE) {
          value += text.slice(from, quote + 1);
          from = quote + 2;
          continue;
        }
        value += text.slice(from, quote);
        let after = quote + 1;
        while (after < length) {
          const code = text.charCodeAt(after);
          if ((code !== SPACE && code !== TAB) || code === delimiterCode) break;
          after++;
        }
        if (after >= length && !final) return MORE;
        cells.push(value);
        if (after >= length) return { cells, end: length };
        const code = text.charCodeAt(after);
        if (code === NEWLINE) return { cells, end: after + 1 };
        if (code !== delimiterCode) return undefined; // text after the closing quote
        position = after + 1;
        break;
      }
      continue;
    }

    let end = position;
    while (end < length) {
      const code = text.charCodeAt(end);
      if (code === delimiterCode || code === NEWLINE) break;
      end++;
    }
    if (end >= length && !final) return MORE;
    cells.push(text.slice(position, end));
    if (end >= length) return { cells, end: length };
    if (text.charCodeAt(end) === NEWLINE) return { cells, end: end + 1 };
    position = end + 1;
  }
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) count++;
  return count;
}
