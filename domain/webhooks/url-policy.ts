/**
 * Where webhooks may be sent (docs/processes.md P2 URLs; OWASP SSRF Prevention Cheat Sheet).
 *
 * - production: `https` only, and never to loopback, private (RFC 1918, RFC 4193 unique-local),
 *   link-local (incl. the cloud metadata address 169.254.169.254 and fd00:ec2::254), carrier-grade
 *   NAT, unspecified, multicast, broadcast or reserved addresses;
 * - sandbox: `http` is also allowed, and so are loopback addresses and `localhost`, so integrators
 *   can develop against a receiver on their own machine. The other blocked ranges stay blocked.
 *
 * `checkWebhookUrl` judges the URL as written (at create and PATCH); `checkResolvedAddress` judges
 * each address the host resolves to, at delivery time, after DNS (a name may point anywhere).
 * Pure: no DNS here; the delivery activity resolves and calls `checkResolvedAddress`.
 */
import ipaddr from 'ipaddr.js';

export type WebhookEnvironment = 'sandbox' | 'production';

export type UrlVerdict = { ok: true } | { ok: false; reason: string };

/** ipaddr.js ranges that are never a webhook destination, in any environment. */
const alwaysBlocked = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal',
  'private',
  'uniqueLocal',
  'carrierGradeNat',
  'reserved',
  'benchmarking',
  'amt',
  'as112',
  'as112v6',
  'deprecated',
  'orchid2',
  'droneRemoteIdProtocolEntityTags',
  'ipv4Mapped',
  'rfc6145',
  'rfc6052',
  '6to4',
  'teredo',
  'discard',
]);

const maxUrlLength = 2048;

/**
 * Whether `address` (an IP literal) may receive a webhook in `environment`. IPv4-mapped IPv6
 * addresses are judged as the IPv4 address they carry. A string that is not an IP → not ok.
 */
export function checkResolvedAddress(address: string, environment: WebhookEnvironment): UrlVerdict {
  if (!ipaddr.isValid(address)) return { ok: false, reason: 'not an IP address' };
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  // ipaddr.js calls the deprecated IPv4-compatible block ::/96 (RFC 4291 §2.5.5.1) unicast: `[::127.0.0.1]` is
  // written `[::7f00:1]` by the URL parser. Nothing legitimate lives there; refuse it like the other embeddings.
  if (parsed.kind() === 'ipv6' && range === 'unicast' && isIpv4Compatible(parsed as ipaddr.IPv6)) {
    return { ok: false, reason: 'IPv4-compatible IPv6 addresses (::/96) are not allowed' };
  }
  if (range === 'loopback') {
    return environment === 'sandbox'
      ? { ok: true }
      : { ok: false, reason: 'loopback addresses are not allowed in production' };
  }
  if (alwaysBlocked.has(range)) return { ok: false, reason: `${range} addresses are not allowed` };
  return { ok: true };
}

/** Whether `address` lies in ::/96: its first 96 bits are zero (RFC 4291 §2.5.5.1). */
function isIpv4Compatible(address: ipaddr.IPv6): boolean {
  return address.parts.slice(0, 6).every((part) => part === 0);
}

/**
 * The host of a URL without IPv6 brackets, lower-cased, without the trailing dots of a fully qualified name
 * (`localhost.` is `localhost`, RFC 1034 §3.1: the root label is empty). The WHATWG URL parser has already folded
 * case, mapped full-width characters and full stops (IDNA / UTS #46), percent-decoded the host and written every
 * IPv4 spelling (`127.1`, `2130706433`, `0x7f.0.0.1`, a trailing dot) as dotted decimal.
 */
function hostOf(url: URL): string {
  const host = url.hostname.toLowerCase();
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host.replace(/\.+$/, '');
}

/**
 * Names of the local host: `localhost` and every name under it (RFC 6761 §6.3), and the aliases Debian and Red Hat
 * systems put in /etc/hosts for the loopback addresses.
 */
function isLoopbackName(host: string): boolean {
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === 'localhost.localdomain' ||
    host === 'ip6-localhost' ||
    host === 'ip6-loopback'
  );
}

/**
 * Whether `raw` may be a subscription's URL in `environment`: an absolute `https` URL (or `http`
 * in sandbox) without credentials, at most 2048 characters, whose host, when it is an IP literal
 * or a name of the local host (`isLoopbackName`, however spelled: any case, trailing dots), passes
 * `checkResolvedAddress`. Names are checked again after DNS at delivery.
 */
export function checkWebhookUrl(raw: string, environment: WebhookEnvironment): UrlVerdict {
  if (raw.length > maxUrlLength) return { ok: false, reason: `longer than ${maxUrlLength} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'https:' && !(environment === 'sandbox' && url.protocol === 'http:')) {
    return {
      ok: false,
      reason: environment === 'production' ? 'must use https' : 'must use https or http',
    };
  }
  if (url.username || url.password) return { ok: false, reason: 'must not carry credentials' };
  const host = hostOf(url);
  if (host === '') return { ok: false, reason: 'must name a host' };
  if (isLoopbackName(host)) {
    return environment === 'sandbox'
      ? { ok: true }
      : { ok: false, reason: 'loopback addresses are not allowed in production' };
  }
  if (ipaddr.isValid(host)) return checkResolvedAddress(host, environment);
  return { ok: true };
}
