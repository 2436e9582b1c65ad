/** @jsxImportSource hono/jsx */
import { raw } from 'hono/html';
import type { ComponentStatus } from '../componentStatus.js';
import { sanitizeTenantHtml } from '../render/sanitize.js';
import type { UptimeRead } from '../uptime.js';
import type { HistoryMonth, PublicAnnouncement, PublicPage } from '../public/view.js';
import { Document } from './layout.js';
import { ANNOUNCEMENT_STATUS_TEXT, dayClass, dayText, instantLabel, percent, STATUS_TEXT } from './format.js';

type Bars = Map<number, UptimeRead>;
const INDICATOR_STATUS: Record<string, ComponentStatus> = {
  none: 'OPERATIONAL',
  minor: 'DEGRADED_PERFORMANCE',
  major: 'PARTIAL_OUTAGE',
  critical: 'MAJOR_OUTAGE',
  maintenance: 'UNDER_MAINTENANCE',
};
export type PageLinks = { home: string; history: string; auth: string };

/** Tenant markup, sanitised once more on the way out (design: on save and on render). */
const Tenant = (props: { html: string | null }) => (props.html ? <div class="tenant">{raw(sanitizeTenantHtml(props.html))}</div> : null);

function Header(props: { page: PublicPage['page']; links: PageLinks }) {
  const logo = props.page.logoUrl !== null && props.page.logoUrl.startsWith('https://') ? props.page.logoUrl : null;
  return (
    <header class="top">
      {logo !== null ? <img src={logo} alt="" /> : null}
      <h1>
        <a href={props.links.home}>{props.page.name}</a>
      </h1>
    </header>
  );
}

const StatusLabel = (props: { status: ComponentStatus }) => (
  <span class={`s-${props.status}`}>
    <span class="sym" aria-hidden="true">
      {STATUS_TEXT[props.status].symbol}
    </span>
    {STATUS_TEXT[props.status].label}
  </span>
);

function Bar(props: { read: UptimeRead; name: string }) {
  const { days } = props.read;
  return (
    <div>
      <ol class="bar" aria-label={`Daily uptime of ${props.name}, oldest first`}>
        {days.map((day) => (
          <li class={dayClass(day)} tabindex={0}>
            <span>{dayText(day)}</span>
          </li>
        ))}
      </ol>
      <div class="legend">
        <span>{days.length} days ago</span>
        <span>{props.read.uptime === null ? 'No data yet' : `${percent(props.read.uptime)} uptime`}</span>
        <span>Today</span>
      </div>
    </div>
  );
}

function Announcement(props: { a: PublicAnnouncement }) {
  const { a } = props;
  return (
    <article class="card">
      <h3>{a.title}</h3>
      <p class="meta">
        {a.phase === 'SCHEDULED' && a.scheduledFor !== null && a.scheduledUntil !== null
          ? `Scheduled: ${instantLabel(a.scheduledFor)} to ${instantLabel(a.scheduledUntil)}`
          : a.phase === 'IN_PROGRESS'
            ? `In progress until ${instantLabel(a.scheduledUntil ?? a.updatedAt)}`
            : ANNOUNCEMENT_STATUS_TEXT[a.status]}
      </p>
      <ol class="timeline">
        {[...a.updates].reverse().map((u) => (
          <li>
            <p class="meta">
              {u.status !== null ? <strong>{ANNOUNCEMENT_STATUS_TEXT[u.status]} · </strong> : null}
              <time datetime={u.createdAt}>{instantLabel(u.createdAt)}</time>
            </p>
            {raw(u.bodyHtml)}
          </li>
        ))}
      </ol>
    </article>
  );
}

function groups(components: PublicPage['components']): { name: string | null; items: PublicPage['components'] }[] {
  const result: { name: string | null; items: PublicPage['components'] }[] = [];
  for (const component of components) {
    const last = result[result.length - 1];
    if (last && last.name === component.groupName) last.items.push(component);
    else result.push({ name: component.groupName, items: [component] });
  }
  return result;
}

export function StatusPageView(props: { view: PublicPage; bars: Bars; nonce: string; links: PageLinks }) {
  const { view, bars, links } = props;
  return (
    <Document title={`${view.page.name} status`} nonce={props.nonce} theme={view.page}>
      <Header page={view.page} links={links} />
      <Tenant html={view.page.headerHtml} />
      <main>
        <section class={`card banner s-${INDICATOR_STATUS[view.status.indicator] ?? 'OPERATIONAL'}`}>
          <span class="sym" aria-hidden="true">
            {STATUS_TEXT[INDICATOR_STATUS[view.status.indicator] ?? 'OPERATIONAL'].symbol}
          </span>
          <span>{view.status.description}</span>
        </section>
        {view.activeAnnouncements.length > 0 ? (
          <section>
            <h2>Active incidents and maintenance</h2>
            {view.activeAnnouncements.map((a) => (
              <Announcement a={a} />
            ))}
          </section>
        ) : null}
        {view.scheduledMaintenance.length > 0 ? (
          <section>
            <h2>Scheduled maintenance</h2>
            {view.scheduledMaintenance.map((a) => (
              <Announcement a={a} />
            ))}
          </section>
        ) : null}
        <section>
          <h2>Components</h2>
          {groups(view.components).map((group) => (
            <div class="card">
              {group.name !== null ? <h3>{group.name}</h3> : null}
              {group.items.map((component) => {
                const read = bars.get(component.id);
                return (
                  <div class="component">
                    <div class="row">
                      <strong>{component.name}</strong>
                      <StatusLabel status={component.status} />
                    </div>
                    {component.description !== null ? <p class="desc">{component.description}</p> : null}
                    {view.page.showUptimeHistory && component.showUptimeBar && read ? <Bar read={read} name={component.name} /> : null}
                  </div>
                );
              })}
            </div>
          ))}
          {view.page.showUptimeHistory ? (
            <p class="meta">Uptime is per UTC day. Planned maintenance does not count against uptime; days without data are shown as “no data”.</p>
          ) : null}
        </section>
        {view.page.showIncidentHistory ? (
          <p>
            <a href={links.history}>Incident history</a>
          </p>
        ) : null}
      </main>
      <Tenant html={view.page.footerHtml} />
      <footer>
        Last updated <time datetime={view.updatedAt}>{instantLabel(view.updatedAt)}</time> · Powered by Vigil
      </footer>
    </Document>
  );
}

export function HistoryView(props: { view: PublicPage; months: HistoryMonth[]; nonce: string; links: PageLinks }) {
  const names = new Map(props.view.components.map((c) => [c.id, c.name]));
  return (
    <Document title={`${props.view.page.name} history`} nonce={props.nonce} theme={props.view.page}>
      <Header page={props.view.page} links={props.links} />
      <main>
        <h2>Incident history</h2>
        {props.months.length === 0 ? <p>No history is published for this page.</p> : null}
        {props.months.map((month) => (
          <section>
            <h2>{month.month}</h2>
            {month.announcements.length === 0 && month.incidents.length === 0 ? <p class="meta">Nothing to report.</p> : null}
            {month.announcements.map((a) => (
              <Announcement a={a} />
            ))}
            {month.incidents.length > 0 ? (
              <ul>
                {month.incidents.map((incident) => (
                  <li>
                    {incident.componentIds.map((id) => names.get(id) ?? '').join(', ')}: {incident.severity} incident from {instantLabel(incident.startedAt)}
                    {incident.resolvedAt !== null ? ` to ${instantLabel(incident.resolvedAt)}` : ' (ongoing)'}
                  </li>
                ))}
              </ul>
            ) : null}
          </section>
        ))}
        <p>
          <a href={props.links.home}>Back to current status</a>
        </p>
      </main>
    </Document>
  );
}

export function PasswordView(props: { nonce: string; links: PageLinks; error: boolean }) {
  return (
    <Document title="Password required" nonce={props.nonce} theme={{ primaryColor: null, backgroundColor: null, faviconUrl: null }}>
      <main class="card">
        <h1>This status page is password protected</h1>
        <form class="login" method="post" action={props.links.auth}>
          <label for="password">Password</label>
          <input id="password" name="password" type="password" required autocomplete="current-password" />
          {props.error ? (
            <p class="error" role="alert">
              Wrong password.
            </p>
          ) : null}
          <button type="submit">View status</button>
        </form>
      </main>
    </Document>
  );
}

export function NotFoundView(props: { nonce: string }) {
  return (
    <Document title="Status page not found" nonce={props.nonce} theme={{ primaryColor: null, backgroundColor: null, faviconUrl: null }}>
      <main class="card">
        <h1>Page not found</h1>
        <p>There is no status page at this address.</p>
      </main>
    </Document>
  );
}
