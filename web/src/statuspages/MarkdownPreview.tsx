import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { previewMarkdown } from './api';

/**
 * What subscribers will read: the server renders the Markdown with the public page's own renderer
 * and allowlist (POST /status-pages/markdown-preview), so the preview and the page cannot differ.
 * The HTML placed here is that sanitised answer, never the typed text.
 */
export function MarkdownPreview({ source, label }: { source: string; label: string }) {
  const [settled, setSettled] = useState(source);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(source), 300);
    return () => clearTimeout(timer);
  }, [source]);
  const preview = useQuery({ queryKey: ['status-pages', 'markdown', settled], enabled: settled.trim() !== '', queryFn: () => previewMarkdown(settled) });
  return (
    <section className="md-preview" aria-label={label}>
      <h3 className="md-preview-title">Preview</h3>
      {settled.trim() === '' ? (
        <p className="muted">Nothing to preview yet.</p>
      ) : preview.data ? (
        <div className="md-body" dangerouslySetInnerHTML={{ __html: preview.data.html }} />
      ) : preview.isError ? (
        <p className="muted">No preview: {preview.error.message}</p>
      ) : (
        <p className="muted">Rendering…</p>
      )}
    </section>
  );
}
