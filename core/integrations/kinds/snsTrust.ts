import { X509Certificate, verify } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { HttpError, unauthorized } from '../../http/errors.js';
import { guardedRequest } from '../../outbound/index.js';

/*
 * Who may speak as AWS SNS: the hosts Vigil fetches a signing certificate or a subscription
 * confirmation from, and the signature check itself (AWS's documented algorithm, node:crypto).
 * https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html
 */

/** The signed fields of each message type, in the order AWS concatenates them. */
const SIGNED_FIELDS = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
} as const;

export type SnsMessageType = keyof typeof SIGNED_FIELDS;

export type SignedSnsMessage = {
  Type: SnsMessageType;
  SignatureVersion: '1' | '2';
  Signature: string;
  SigningCertURL: string;
} & { [field in (typeof SIGNED_FIELDS)[SnsMessageType][number]]?: string | undefined };

const FETCH_TIMEOUT_MS = 5_000;
const CERT_MAX_BYTES = 16 * 1024;
const CERT_CACHE_SIZE = 64;

type EndpointOf = (region: string) => string | undefined;
let snsEndpointHost: Promise<EndpointOf> | undefined;

/**
 * SNS's host in a region, as the AWS SDK's own endpoint rules (maintained with AWS's partitions:
 * amazonaws.com, amazonaws.com.cn, GovCloud...) spell it. Loaded on first use: only SNS intake
 * needs the SDK here.
 */
function endpointResolver(): Promise<EndpointOf> {
  snsEndpointHost ??= import('@aws-sdk/client-sns').then(({ SNSClient }) => {
    // Resolving an endpoint signs nothing; fixed credentials keep the SDK from looking for any.
    const client = new SNSClient({ region: 'us-east-1', credentials: { accessKeyId: 'unused', secretAccessKey: 'unused' } });
    return (region: string) => {
      try {
        return client.config.endpointProvider({ Region: region, UseFIPS: false, UseDualStack: false }).url.hostname;
      } catch {
        // The SDK refuses a region that is no host label: no SNS host there.
        return undefined;
      }
    };
  });
  return snsEndpointHost;
}

/**
 * True when Vigil may fetch `raw` as SNS: https, default port, no credentials, on the host the SDK
 * names for SNS in the region its name carries; or on an origin the operator trusts
 * (VIGIL_SNS_TRUSTED_ORIGINS: emulators, the test suite).
 */
export async function isSnsUrl(raw: string, trustedOrigins: readonly string[]): Promise<boolean> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '') return false;
  if (trustedOrigins.includes(url.origin)) return true;
  if (url.protocol !== 'https:' || url.port !== '') return false;
  const [service, region] = url.hostname.split('.');
  if (service !== 'sns' || region === undefined || region === '') return false;
  const resolve = await endpointResolver();
  return resolve(region) === url.hostname;
}

async function fetchFromSns(deps: Deps, url: string, maxBodyBytes: number): Promise<string> {
  const result = await guardedRequest(
    { url, method: 'GET', timeoutMs: FETCH_TIMEOUT_MS, followRedirects: false, maxRedirects: 0, blockHttpDowngrade: true, maxBodyBytes },
    { allowLoopback: deps.config.probeAllowPrivate },
  );
  // SNS itself unreachable or failing is no fault of the sender: a 5xx makes SNS deliver again.
  if (!result.ok) throw new HttpError('UPSTREAM_FAILED', `SNS could not be reached at ${new URL(url).origin}: ${result.message}`);
  if (result.statusCode < 200 || result.statusCode > 299) {
    throw new HttpError('UPSTREAM_FAILED', `SNS answered HTTP ${result.statusCode} at ${new URL(url).origin}`);
  }
  if (result.bodyTruncated) throw new HttpError('UPSTREAM_FAILED', `SNS answered more than ${maxBodyBytes} bytes`);
  return result.bodyText;
}

/** Certificates by URL: SNS signs with few of them, and each is fetched once per process. */
const certificates = new Map<string, X509Certificate>();

async function signingCertificate(deps: Deps, url: string): Promise<X509Certificate> {
  const cached = certificates.get(url);
  if (cached !== undefined) return cached;
  const pem = await fetchFromSns(deps, url, CERT_MAX_BYTES);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch {
    throw new HttpError('UPSTREAM_FAILED', 'The signing certificate SNS served is no PEM certificate');
  }
  if (certificates.size >= CERT_CACHE_SIZE) {
    const oldest = certificates.keys().next().value;
    if (oldest !== undefined) certificates.delete(oldest);
  }
  certificates.set(url, certificate);
  return certificate;
}

/** The string SNS signs: each present field's name and value, a newline after each. */
export function canonicalString(message: SignedSnsMessage): string {
  let text = '';
  for (const field of SIGNED_FIELDS[message.Type]) {
    const value = message[field];
    if (value !== undefined) text += `${field}\n${value}\n`;
  }
  return text;
}

/**
 * Throws 401 unless SNS signed `message` with the certificate at its SigningCertURL, itself on an
 * SNS host over https and a `.pem`. Version 1 is SHA1withRSA, version 2 SHA256withRSA.
 */
export async function verifySnsSignature(deps: Deps, message: SignedSnsMessage): Promise<void> {
  const certUrl = message.SigningCertURL;
  const pathname = URL.canParse(certUrl) ? new URL(certUrl).pathname : '';
  if (!pathname.endsWith('.pem') || !(await isSnsUrl(certUrl, deps.config.snsTrustedOrigins))) {
    throw unauthorized('SigningCertURL is not an SNS certificate (https on an SNS host, ending in .pem)');
  }
  const certificate = await signingCertificate(deps, certUrl);
  if (certificate.publicKey.asymmetricKeyType !== 'rsa') throw unauthorized('The SNS signing certificate holds no RSA key');
  const algorithm = message.SignatureVersion === '1' ? 'sha1' : 'sha256';
  const valid = verify(algorithm, Buffer.from(canonicalString(message), 'utf8'), certificate.publicKey, Buffer.from(message.Signature, 'base64'));
  if (!valid) throw unauthorized('The SNS message signature does not verify');
}

/** Confirms a subscription: one GET of its SubscribeURL, on an SNS host only. */
export async function confirmSubscription(deps: Deps, subscribeUrl: string): Promise<void> {
  if (!(await isSnsUrl(subscribeUrl, deps.config.snsTrustedOrigins))) {
    throw unauthorized('SubscribeURL is not on an SNS host (https)');
  }
  await fetchFromSns(deps, subscribeUrl, 16 * 1024);
}
