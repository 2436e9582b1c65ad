/**
 * `widget.js` (docs/guide/status-pages.md "Feeds, badge, widget and summary.json"): a self-contained script a host page includes next to
 * `<div data-vigil-status="<slug>">`. It finds its own address (`document.currentScript`), reads
 * the CORS-enabled `summary` beside it, and renders a small status pill into each matching div
 * inside a shadow root, so neither page's CSS reaches the other.
 *
 * The script is the same for every page: the slug comes from its own URL and the data from the
 * summary, so no tenant string is ever written into JavaScript. Text goes in only through
 * `textContent`, styles only through the CSSOM (a host page's CSP may refuse inline `<style>`),
 * and the only link is the summary's page URL, kept only if it is http(s).
 */
export const WIDGET_JS = `(function () {
  'use strict';
  var script = document.currentScript;
  if (!script || !script.src) return;
  var base = new URL('.', script.src);
  var parts = base.pathname.split('/').filter(Boolean);
  var slug = decodeURIComponent(parts[parts.length - 1] || '');
  var summaryUrl = new URL('summary', base).href;
  var COLOURS = { none: '#1a7f37', minor: '#9a6700', major: '#bc4c00', critical: '#cf222e', maintenance: '#0969da' };
  var GREY = '#6e7781';

  function style(el, rules) {
    for (var name in rules) if (Object.prototype.hasOwnProperty.call(rules, name)) el.style.setProperty(name, rules[name]);
  }

  function render(host, data) {
    var root = host.shadowRoot || host.attachShadow({ mode: 'open' });
    while (root.firstChild) root.removeChild(root.firstChild);
    var ok = data && data.status && typeof data.status.description === 'string';
    var href = ok && data.page && typeof data.page.url === 'string' && /^https?:\\/\\//i.test(data.page.url) ? data.page.url : null;
    var pill = document.createElement(href ? 'a' : 'span');
    if (href) {
      pill.setAttribute('href', href);
      pill.setAttribute('target', '_blank');
      pill.setAttribute('rel', 'noopener noreferrer');
    }
    pill.setAttribute('part', 'pill');
    pill.setAttribute('data-indicator', ok ? String(data.status.indicator) : 'unknown');
    style(pill, { display: 'inline-flex', 'align-items': 'center', gap: '0.5em', padding: '0.25em 0.75em', 'border-radius': '999px', border: '1px solid #d0d7de', background: '#fff', color: '#1f2328', 'font': '14px/1.4 system-ui, sans-serif', 'text-decoration': 'none' });
    var dot = document.createElement('span');
    dot.setAttribute('aria-hidden', 'true');
    style(dot, { width: '0.6em', height: '0.6em', 'border-radius': '50%', background: (ok && COLOURS[data.status.indicator]) || GREY });
    var name = document.createElement('span');
    name.setAttribute('class', 'name');
    name.textContent = ok && data.page && typeof data.page.name === 'string' ? data.page.name : '';
    style(name, { 'font-weight': '600' });
    var status = document.createElement('span');
    status.setAttribute('class', 'status');
    status.textContent = ok ? data.status.description : 'Status unavailable';
    pill.appendChild(dot);
    if (name.textContent) pill.appendChild(name);
    pill.appendChild(status);
    root.appendChild(pill);
    host.setAttribute('data-vigil-ready', ok ? 'true' : 'error');
  }

  function start() {
    var hosts = Array.prototype.filter.call(document.querySelectorAll('[data-vigil-status]'), function (el) {
      return el.getAttribute('data-vigil-status') === slug && !el.hasAttribute('data-vigil-ready');
    });
    if (!hosts.length) return;
    fetch(summaryUrl, { mode: 'cors', credentials: 'omit' })
      .then(function (res) { if (!res.ok) throw new Error('status ' + res.status); return res.json(); })
      .then(function (data) { hosts.forEach(function (host) { render(host, data); }); })
      .catch(function () { hosts.forEach(function (host) { render(host, null); }); });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
`;
