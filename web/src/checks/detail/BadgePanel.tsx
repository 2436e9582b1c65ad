import { CopyButton } from '../../ui/CopyButton';
import type { CheckDetail } from '../api';

/** The public status badge (it shows the badge label, never the check's name) and its Markdown. */
export function BadgePanel({ check }: { check: CheckDetail }) {
  const markdown = `![${check.badgeLabel}](${check.badgeUrl})`;
  // The SVG itself (`/badges/checks/{file}`, where badgeUrl redirects), from this origin whatever
  // public URL the install advertises, so img-src 'self' allows it.
  const key = new URL(check.badgeUrl).pathname.split('/').at(-2) ?? '';
  const src = `/api/badges/checks/${key}.svg`;
  return (
    <section aria-labelledby="badge-title">
      <h2 id="badge-title">Badge</h2>
      <img src={src} alt={`Status badge: ${check.badgeLabel}`} height={20} />
      <div className="copy-row">
        <pre>
          <code>{markdown}</code>
        </pre>
        <CopyButton text={markdown} label="Copy the badge Markdown" />
      </div>
    </section>
  );
}
