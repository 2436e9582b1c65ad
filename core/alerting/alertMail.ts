import { escapeHtml, plainText } from '../statuspages/render/sanitize.js';

type Actions = { acknowledgeUrl?: string | undefined; resolveUrl?: string | undefined } | undefined;

const NOTE = 'Each link opens a page with a button: nothing changes until you press it.';

/**
 * An alert mail's bodies. Plain text as ever; an alert carrying acknowledge/resolve links
 * (core/alerting/ackLinks.ts) lists them under the text and also gets an HTML part whose links are
 * buttons. Every line of the HTML is the plain text escaped (no tenant string is markup there);
 * the only markup is ours.
 */
export function alertMailBody(message: { text: string; actions?: Actions }): { text: string; html?: string } {
  const text = plainText(message.text);
  const links = [
    ...(message.actions?.acknowledgeUrl ? [{ label: 'Acknowledge', url: message.actions.acknowledgeUrl }] : []),
    ...(message.actions?.resolveUrl ? [{ label: 'Resolve', url: message.actions.resolveUrl }] : []),
  ];
  if (links.length === 0) return { text };
  const paragraphs = text
    .split(/\n{2,}/)
    .map((block) => `<p>${block.split('\n').map(escapeHtml).join('<br>')}</p>`)
    .join('\n');
  const buttons = links
    .map(
      (link) =>
        `<a href="${escapeHtml(link.url)}" style="display:inline-block;padding:8px 16px;margin-right:8px;border-radius:4px;background:#1f6feb;color:#ffffff;text-decoration:none">${link.label}</a>`,
    )
    .join('');
  return {
    text: `${text}\n\n${links.map((link) => `${link.label}: ${link.url}`).join('\n')}\n${NOTE}`,
    html: `<!doctype html><html><body style="font-family:sans-serif;line-height:1.4">\n${paragraphs}\n<p>${buttons}</p>\n<p style="color:#57606a;font-size:90%">${NOTE}</p>\n</body></html>`,
  };
}
