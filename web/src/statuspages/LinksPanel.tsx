import { CopyButton } from '../ui/CopyButton';
import { publicLinks, useSubscribers, type StatusPage } from './api';

/** Where the page reaches people: its public address, feeds, badge and widget, and how many subscribe. */
export function LinksPanel({ page, showSubscribers }: { page: StatusPage; showSubscribers: boolean }) {
  const links = publicLinks(page.slug);
  const subscribers = useSubscribers(page.id, showSubscribers);
  const active = subscribers.data?.filter((s) => s.status === 'ACTIVE').length;
  return (
    <section className="card section" aria-labelledby="links-title">
      <h2 id="links-title">Public page and subscribers</h2>
      {showSubscribers ? (
        <p data-subscribers={active ?? ''}>
          {subscribers.isPending
            ? 'Counting subscribers…'
            : subscribers.isError
              ? `Subscribers could not be counted: ${subscribers.error.message}`
              : `${active} active subscriber${active === 1 ? '' : 's'} (${subscribers.data.length} including pending and disabled).`}
        </p>
      ) : null}
      <ul className="link-list">
        <li>
          <a href={links.page} target="_blank" rel="noreferrer">
            Public page
          </a>{' '}
          <code>{links.page}</code>
        </li>
        <li>
          <a href={links.rss}>RSS feed</a> · <a href={links.atom}>Atom feed</a>
        </li>
        <li>
          <a href={links.badge}>Badge</a> <img src={links.badge} alt={`Status badge of ${page.name}`} height={20} />
        </li>
      </ul>
      <div className="copy-row">
        <label htmlFor="widget-snippet">Widget snippet</label>
        <textarea id="widget-snippet" readOnly rows={2} value={links.widget} />
        <CopyButton text={links.widget} label="Copy the widget snippet" />
      </div>
    </section>
  );
}
