import type { IncomingMessage, ServerResponse } from 'node:http';
import { createNodeConnect, type GuardedRequestDeps } from '../../core/outbound/index.js';
import type { HostileString } from './hostile.js';
import { fakeResolver, startLoopbackTlsServer, toLoopback, type LoopbackServer, type RecordedRequest } from './outbound.js';
import { TEST_CERT_PEM, TEST_KEY_PEM } from './tlsFixture.js';

/**
 * Local receivers for the chat and push channel types (TEAMS, DISCORD, NTFY, TELEGRAM): one
 * loopback TLS server standing in for every provider, on the host the test certificate names.
 * Each request is checked against the provider's documented shape; a request that fails the
 * check is answered 400, as the provider would, so a delivery of a bad shape cannot pass.
 */
export type ChatType = 'TEAMS' | 'DISCORD' | 'NTFY' | 'TELEGRAM';
export const CHAT_TYPES: readonly ChatType[] = ['TEAMS', 'DISCORD', 'NTFY', 'TELEGRAM'];

export const HOST = 'https://vigil-tls.test';
/** Where the acknowledge and resolve links of the tests point; any other link in a message is injected. */
export const ACK_BASE = 'https://vigil.example/api/ack/';
/** The links Vigil itself puts in a message: the tests' ACK_BASE, or the signed links of a real alert under the default public URL. */
const VIGIL_ACK_ORIGINS = [new URL(ACK_BASE).origin, 'http://localhost:3000'];
function isAckLink(value: unknown): boolean {
  if (!URL.canParse(String(value))) return false;
  const url = new URL(String(value));
  return VIGIL_ACK_ORIGINS.includes(url.origin) && url.pathname.startsWith('/api/ack/') && url.search === '' && url.hash === '';
}
export const BOT_TOKEN = '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOpp';

/** A valid config of each type whose deliveries reach the receiver at a path naming `n`. */
export function chatConfig(type: ChatType, n: number | string): Record<string, string> {
  switch (type) {
    case 'TEAMS':
      return { url: `${HOST}/teams/${n}?sig=SECRETsig${n}` };
    case 'DISCORD':
      return { url: `${HOST}/api/webhooks/${n}/SECRETtoken${n}` };
    case 'NTFY':
      return { url: `${HOST}/ntfy/alerts-${n}`, token: `tk_SECRETntfy${n}` };
    case 'TELEGRAM':
      return { botToken: BOT_TOKEN, chatId: `-100${n}`, apiBaseUrl: `${HOST}/tg` };
  }
}

/** Which channel (type and `n`) a recorded request was for. */
export function addressedTo(request: RecordedRequest): { type: ChatType; n: string } | null {
  const path = request.url.split('?')[0] ?? '';
  let m = /^\/teams\/([^/]+)$/.exec(path);
  if (m?.[1]) return { type: 'TEAMS', n: m[1] };
  m = /^\/api\/webhooks\/([^/]+)\/[^/]+$/.exec(path);
  if (m?.[1]) return { type: 'DISCORD', n: m[1] };
  const body = parse(request.body);
  if (path === '/ntfy/' && typeof body?.topic === 'string') return { type: 'NTFY', n: body.topic.replace(/^alerts-/, '') };
  if (path === `/tg/bot${BOT_TOKEN}/sendMessage` && typeof body?.chat_id === 'string') return { type: 'TELEGRAM', n: body.chat_id.replace(/^-100/, '') };
  return null;
}

type Json = Record<string, unknown>;
function parse(body: string): Json | null {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
  } catch {
    return null;
  }
}
const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const httpUrl = (value: unknown): boolean => typeof value === 'string' && /^https?:\/\//.test(value) && URL.canParse(value);

/** Telegram counts its 4096 characters after entity parsing. */
const telegramVisible = (html: string): string =>
  html
    .replace(/<\/?b>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** What is wrong with a request against its provider's documented shape; [] when none. */
export function shapeProblems(request: RecordedRequest): string[] {
  const to = addressedTo(request);
  if (!to) return [`a request to ${request.url} that no provider takes`];
  const problems: string[] = [];
  if (request.method !== 'POST') problems.push(`method ${request.method}`);
  if (!String(request.headers['content-type']).startsWith('application/json')) problems.push('not application/json');
  const body = parse(request.body);
  if (!body) return [...problems, 'the body is not a JSON object'];
  switch (to.type) {
    // learn.microsoft.com: "Create incoming webhooks with Workflows for Microsoft Teams" (a message with an Adaptive Card attachment).
    case 'TEAMS': {
      const attachment = arrayOf(body.attachments)[0];
      const card = isRecord(attachment) ? attachment.content : undefined;
      if (body.type !== 'message') problems.push('type is not "message"');
      if (!isRecord(attachment) || attachment.contentType !== 'application/vnd.microsoft.card.adaptive') problems.push('no Adaptive Card attachment');
      if (!isRecord(card) || card.type !== 'AdaptiveCard' || typeof card.version !== 'string') problems.push('the attachment is not an AdaptiveCard with a version');
      else {
        if (arrayOf(card.body).length === 0) problems.push('the card has no body');
        for (const element of arrayOf(card.body)) {
          if (!isRecord(element) || !['TextBlock', 'RichTextBlock', 'FactSet', 'ColumnSet', 'Container'].includes(String(element.type))) problems.push('an unknown body element');
          else if (element.type === 'RichTextBlock' && !arrayOf(element.inlines).every((i) => isRecord(i) && i.type === 'TextRun' && typeof i.text === 'string'))
            problems.push('a RichTextBlock inline that is not a TextRun');
        }
        for (const action of arrayOf(card.actions)) {
          if (!isRecord(action) || action.type !== 'Action.OpenUrl' || typeof action.title !== 'string' || !httpUrl(action.url))
            problems.push('an action that is not an Action.OpenUrl');
        }
      }
      break;
    }
    // discord.com/developers/docs/resources/webhook#execute-webhook and resources/message#embed-object-embed-limits.
    case 'DISCORD': {
      const embeds = arrayOf(body.embeds);
      if (embeds.length === 0 && typeof body.content !== 'string') problems.push('neither content nor embeds');
      if (embeds.length > 10) problems.push('more than 10 embeds');
      if (!isRecord(body.allowed_mentions) || !Array.isArray(body.allowed_mentions.parse)) problems.push('no allowed_mentions.parse');
      let total = 0;
      for (const embed of embeds) {
        if (!isRecord(embed)) {
          problems.push('an embed that is not an object');
          continue;
        }
        const title = String(embed.title ?? '');
        const description = String(embed.description ?? '');
        total += title.length + description.length;
        if (title.length > 256) problems.push('a title over 256 characters');
        if (description.length > 4096) problems.push('a description over 4096 characters');
        if (embed.color !== undefined && !(Number.isInteger(embed.color) && Number(embed.color) >= 0 && Number(embed.color) <= 0xffffff))
          problems.push('a colour that is no RGB integer');
        if (embed.url !== undefined && !httpUrl(embed.url)) problems.push('an embed url that is no URL');
        const fields = arrayOf(embed.fields);
        if (fields.length > 25) problems.push('more than 25 fields');
        for (const field of fields) {
          if (!isRecord(field) || typeof field.name !== 'string' || typeof field.value !== 'string') problems.push('a field without name and value');
          else {
            total += field.name.length + field.value.length;
            if (field.name.length > 256 || field.value.length > 1024 || field.value === '') problems.push('a field name or value out of bounds');
          }
        }
      }
      if (total > 6000) problems.push('embeds over 6000 characters');
      break;
    }
    // docs.ntfy.sh/publish/#publish-as-json (posted to the server's root URL).
    case 'NTFY': {
      if (typeof body.message !== 'string' || body.message === '') problems.push('no message');
      if (body.title !== undefined && typeof body.title !== 'string') problems.push('a title that is no string');
      if (!Number.isInteger(body.priority) || Number(body.priority) < 1 || Number(body.priority) > 5) problems.push('a priority outside 1-5');
      if (body.tags !== undefined && !arrayOf(body.tags).every((tag) => typeof tag === 'string')) problems.push('tags that are not strings');
      const actions = arrayOf(body.actions);
      if (actions.length > 3) problems.push('more than 3 actions');
      for (const action of actions) {
        if (!isRecord(action) || action.action !== 'view' || typeof action.label !== 'string' || !httpUrl(action.url)) problems.push('an action that is not a view action');
      }
      break;
    }
    // core.telegram.org/bots/api#sendmessage.
    case 'TELEGRAM': {
      if (body.parse_mode !== 'HTML') problems.push('parse_mode is not HTML');
      const text = typeof body.text === 'string' ? body.text : '';
      const visible = telegramVisible(text).length;
      if (visible < 1 || visible > 4096) problems.push(`text of ${visible} characters after entity parsing`);
      const keyboard = isRecord(body.reply_markup) ? body.reply_markup.inline_keyboard : undefined;
      if (body.reply_markup !== undefined && !arrayOf(keyboard).every((row) => Array.isArray(row) && row.every((b) => isRecord(b) && typeof b.text === 'string' && httpUrl(b.url))))
        problems.push('an inline keyboard button that is not a URL button');
      break;
    }
  }
  return problems;
}

export type PlannedAnswer = { status: number; headers?: Record<string, string>; body?: string };

/** The receiver, with the outbound seams that send every "vigil-tls.test" request to it. */
export async function startChatReceiver() {
  const plans = new Map<string, PlannedAnswer[]>();
  const server: LoopbackServer = await startLoopbackTlsServer(TEST_CERT_PEM, TEST_KEY_PEM, (request: IncomingMessage, response: ServerResponse, body: string) => {
    const recorded = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body };
    const to = addressedTo(recorded);
    const planned = to ? plans.get(`${to.type}:${to.n}`)?.shift() : undefined;
    const problems = shapeProblems(recorded);
    const answer = planned ?? (problems.length > 0 ? { status: 400 } : { status: to?.type === 'TEAMS' ? 202 : to?.type === 'DISCORD' ? 204 : 200 });
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    response.end(answer.status === 204 ? undefined : (planned?.body ?? JSON.stringify(problems.length > 0 ? { ok: false, problems } : { ok: true })));
  });
  const outbound: GuardedRequestDeps = {
    resolve: fakeResolver({ 'vigil-tls.test': ['93.184.216.34'] }).resolve,
    connect: toLoopback(server.port, createNodeConnect({ ca: TEST_CERT_PEM })),
  };
  return {
    server,
    outbound,
    /** The requests one channel received (its type and `n`). */
    at: (type: ChatType, n: number | string) => server.requests.filter((r) => addressedTo(r)?.type === type && addressedTo(r)?.n === String(n)),
    /** Answers for the channel's next requests, in order; then the shape check's answer. */
    answer: (type: ChatType, n: number | string, ...answers: PlannedAnswer[]) => void plans.set(`${type}:${n}`, [...(plans.get(`${type}:${n}`) ?? []), ...answers]),
    close: () => server.close(),
  };
}
export type ChatReceiver = Awaited<ReturnType<typeof startChatReceiver>>;

// eslint-disable-next-line no-control-regex
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;
const BIDI = /[\u202a-\u202e\u2066-\u2069]/;
/** Characters that start Markdown or a mention in Discord when not escaped. */
const DISCORD_MARKS = /[*_~`|<>[\]()#@:\\-]/;

/**
 * What is wrong with one delivery of `type` carrying `hostile`; [] when it arrived inert (no
 * markup, mention or link of the tenant's making) and readable. Links in a message may only be
 * the test's acknowledge links. `carries: false` when the message need not carry the string.
 */
export function chatInertProblems(request: RecordedRequest, hostile: HostileString, carries = true): string[] {
  const to = addressedTo(request);
  const body = parse(request.body);
  if (!to || !body) return ['not a provider request'];
  const problems: string[] = [];
  const check = (slot: string, text: string, singleLine: boolean) => {
    if ((singleLine ? /[\n\r]/.test(text) : false) || CONTROL_BUT_NEWLINE.test(text.replace(/\t/g, ' ')) || BIDI.test(text))
      problems.push(`${slot}: a control character or bidi override`);
  };
  let readable: string[] = [];
  switch (to.type) {
    case 'TEAMS': {
      const card = (arrayOf(body.attachments)[0] as Json | undefined)?.content as Json | undefined;
      // Tenant text only in TextRuns, which the card schema renders as plain text; no Markdown TextBlock carries it.
      const runs = arrayOf(card?.body).flatMap((element) => (isRecord(element) && element.type === 'RichTextBlock' ? arrayOf(element.inlines) : []));
      readable = runs.map((run) => String((run as Json).text));
      for (const text of readable) check('TextRun', text, true);
      if (arrayOf(card?.body).some((element) => isRecord(element) && element.type !== 'RichTextBlock'))
        problems.push('a body element other than a RichTextBlock (TextBlocks render Markdown)');
      for (const action of arrayOf(card?.actions)) if (!isAckLink((action as Json).url)) problems.push('a link that is not an acknowledge link');
      break;
    }
    case 'DISCORD': {
      if (JSON.stringify(body.allowed_mentions) !== '{"parse":[]}') problems.push('mentions may be parsed');
      if (body.content !== undefined) problems.push('a content line');
      for (const embed of arrayOf(body.embeds)) {
        const e = embed as Json;
        const slots: [string, string][] = [
          ['title', String(e.title ?? '')],
          ['description', String(e.description ?? '')],
          ...arrayOf(e.fields)
            .map((f) => f as Json)
            .filter((f) => f.name !== 'Act on it')
            .map((f): [string, string] => [`field ${String(f.name)}`, String(f.value)]),
        ];
        for (const [slot, text] of slots) {
          check(slot, text, slot === 'title');
          if (DISCORD_MARKS.test(text.replace(/\\[\s\S]/g, ''))) problems.push(`${slot}: an unescaped Markdown or mention character`);
          readable.push(text.replace(/\\([\s\S])/g, '$1'));
        }
        if (e.url !== undefined && !isAckLink(e.url)) problems.push('an embed url that is not an acknowledge link');
        const links = arrayOf(e.fields).find((f) => (f as Json).name === 'Act on it') as Json | undefined;
        for (const m of String(links?.value ?? '').matchAll(/\]\(([^)]*)\)/g)) if (!isAckLink(m[1])) problems.push('a link that is not an acknowledge link');
      }
      break;
    }
    case 'NTFY': {
      if (body.markdown !== undefined) problems.push('Markdown asked for');
      check('title', String(body.title ?? ''), true);
      check('message', String(body.message ?? ''), false);
      readable = [String(body.title ?? ''), String(body.message ?? '')];
      // Headers are ntfy's other way to set a title: tenant text must not travel in one.
      for (const [name, value] of Object.entries(request.headers))
        if (hostile.readable.length > 3 && String(value).includes(hostile.readable)) problems.push(`the string in header ${name}`);
      for (const action of arrayOf(body.actions)) if (!isAckLink((action as Json).url)) problems.push('a link that is not an acknowledge link');
      if (body.click !== undefined) problems.push('a click link');
      break;
    }
    case 'TELEGRAM': {
      if (body.parse_mode !== 'HTML') problems.push('parse_mode is not HTML');
      const text = String(body.text ?? '');
      check('text', text, false);
      const markup = text.replace(/^<b>/, '').replace(/<\/b>\n/, '');
      if (/[<>]/.test(markup)) problems.push('a raw < or > (HTML markup)');
      if (/&(?!lt;|gt;|amp;|quot;|#39;)/.test(markup)) problems.push('a raw & (not an entity Telegram reads)');
      readable = [telegramVisible(text)];
      const keyboard = isRecord(body.reply_markup) ? arrayOf(body.reply_markup.inline_keyboard).flat() : [];
      for (const button of keyboard) if (!isAckLink((button as Json).url)) problems.push('a button that is not an acknowledge link');
      break;
    }
  }
  if (carries && !readable.some((text) => text.includes(hostile.readable))) problems.push(`"${hostile.readable.slice(0, 40)}" is not readable`);
  return problems;
}
