/**
 * The page's one style sheet, sent inline under the CSP nonce (no `style` attributes anywhere:
 * the CSP forbids them). Tenant colours come in as validated `#rgb`/`#rrggbb` only.
 */
const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const color = (value: string | null, fallback: string): string => (value !== null && HEX.test(value) ? value : fallback);

export function pageCss(theme: { primaryColor: string | null; backgroundColor: string | null }): string {
  const primary = color(theme.primaryColor, '#2563eb');
  const background = color(theme.backgroundColor, '#f8fafc');
  return `
:root{--primary:${primary};--bg:${background};--fg:#0f172a;--muted:#475569;--card:#fff;--line:#e2e8f0;
--ok:#15803d;--minor:#b45309;--major:#c2410c;--critical:#b91c1c;--maint:#1d4ed8;--none:#94a3b8;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#0b1120;--fg:#e2e8f0;--muted:#94a3b8;--card:#111827;--line:#1f2937;
--ok:#4ade80;--minor:#fbbf24;--major:#fb923c;--critical:#f87171;--maint:#60a5fa;--none:#475569}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg)}
a{color:var(--primary)}
@media (prefers-color-scheme:dark){a{color:#93c5fd}}
.wrap{max-width:860px;margin:0 auto;padding:16px}
header.top{display:flex;align-items:center;gap:12px;flex-wrap:wrap;padding:8px 0 16px;border-bottom:4px solid var(--primary)}
header.top img{max-height:48px;max-width:200px}
h1{font-size:1.6rem;margin:0}
h2{font-size:1.2rem;margin:24px 0 8px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:16px;margin:12px 0}
.banner{font-weight:600;font-size:1.1rem;display:flex;gap:8px;align-items:center}
.sym{display:inline-block;min-width:1.4em;text-align:center;font-weight:700}
.s-OPERATIONAL{color:var(--ok)}.s-DEGRADED_PERFORMANCE{color:var(--minor)}.s-PARTIAL_OUTAGE{color:var(--major)}
.s-MAJOR_OUTAGE{color:var(--critical)}.s-UNDER_MAINTENANCE{color:var(--maint)}
.component{border-top:1px solid var(--line);padding:12px 0}
.component:first-child{border-top:0}
.row{display:flex;justify-content:space-between;gap:8px;flex-wrap:wrap}
.desc{color:var(--muted);font-size:.9rem;margin:2px 0}
.bar{display:flex;gap:2px;list-style:none;padding:0;margin:8px 0 4px;height:34px;align-items:flex-end}
.bar li{flex:1;min-width:2px;height:100%;border-radius:2px;background:var(--ok);position:relative}
.bar li:focus{outline:2px solid var(--primary);outline-offset:2px}
.bar li.d-minor{background:var(--minor);height:80%}.bar li.d-major{background:var(--major);height:60%}
.bar li.d-critical{background:var(--critical);height:40%}
.bar li.d-none{background:transparent;border:1px dashed var(--none);height:30%}
/* One text per day: visually hidden but read by screen readers, shown as a tooltip on hover and focus. */
.bar li span{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.bar li:focus span,.bar li:hover span{width:auto;height:auto;clip:auto;overflow:visible;bottom:40px;left:50%;transform:translateX(-50%);
background:var(--fg);color:var(--bg);padding:4px 8px;border-radius:4px;font-size:.8rem;z-index:2}
.legend{display:flex;justify-content:space-between;color:var(--muted);font-size:.8rem}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.timeline{list-style:none;padding:0;margin:8px 0 0}
.timeline li{border-left:3px solid var(--line);padding:4px 0 4px 12px;margin:4px 0}
.meta{color:var(--muted);font-size:.85rem}
.tenant img{max-width:100%}
footer{color:var(--muted);font-size:.85rem;margin:32px 0 16px}
form.login{display:flex;flex-direction:column;gap:8px;max-width:320px}
form.login input{font:inherit;padding:8px;border:1px solid var(--line);border-radius:6px;background:var(--card);color:var(--fg)}
form.login button{font:inherit;padding:8px;border:0;border-radius:6px;background:var(--primary);color:#fff;cursor:pointer}
.error{color:var(--critical)}
@media (max-width:480px){.wrap{padding:10px}h1{font-size:1.3rem}.bar{gap:1px}}
`;
}
