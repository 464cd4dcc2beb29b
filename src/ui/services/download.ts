/** Hands bytes or text to the browser as a file download, without a round trip to any server. */
export function download(fileName: string, mime: string, data: string | Uint8Array): void {
  const blob = new Blob([data as BlobPart], { type: mime });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // The click has started the download; the URL can go once the event loop has moved on.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
