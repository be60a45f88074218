/** Hands a file to the browser's download (exports, generated CSVs), then frees the object URL. */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Revoking at once can cancel the download in some browsers; a minute is plenty.
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A CSV text as a download (UTF-8; the text brings its own BOM when it wants one). */
export function saveCsv(text: string, filename: string): void {
  saveFile(new Blob([text], { type: 'text/csv;charset=utf-8' }), filename);
}
