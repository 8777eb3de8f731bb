/**
 * Where webhooks may be sent (domain/webhooks/url-policy.ts; OWASP SSRF Prevention Cheat Sheet): every spelling of
 * the local host and of loopback or private addresses the URL check sees is judged as the address it names, in
 * production refused, in sandbox loopback allowed and the other blocked ranges still refused.
 */
import { describe, expect, it } from 'vitest';
import { checkResolvedAddress, checkWebhookUrl } from '../../domain/webhooks/url-policy';

/** Spellings of the local host by name: case, fully qualified (trailing dots), encoded or full-width dots, aliases. */
const loopbackNames = [
  'https://localhost/in',
  'https://localhost./in',
  'https://LOCALHOST./in',
  'https://localhost../in',
  'https://localhost%2e/in',
  'https://localhost\u3002/in',
  'https://\uff2c\uff2f\uff23\uff21\uff2c\uff28\uff2f\uff33\uff34/in',
  'https://api.localhost./in',
  'https://LocalHost.LocalDomain./in',
  'https://ip6-localhost/in',
  'https://IP6-LOOPBACK./in',
];

/** Spellings of loopback addresses: every IPv4 form the URL parser accepts, IPv6 and IPv4-mapped IPv6. */
const loopbackAddresses = [
  'https://127.0.0.1/in',
  'https://127.0.0.1./in',
  'https://127.1/in',
  'https://2130706433/in',
  'https://0x7f.0.0.1/in',
  'https://[::1]/in',
  'https://[0:0:0:0:0:0:0:1]/in',
  'https://[::ffff:127.0.0.1]/in',
  'https://[::FFFF:7f00:1]/in',
  'https://[0:0:0:0:0:ffff:127.0.0.1]/in',
];

describe('checkWebhookUrl: the local host however spelled', () => {
  it('production refuses every spelling of a loopback name or address', () => {
    for (const url of [...loopbackNames, ...loopbackAddresses]) {
      const verdict = checkWebhookUrl(url, 'production');
      expect(verdict, url).toEqual({ ok: false, reason: expect.stringMatching(/loopback/) });
    }
  });

  it('sandbox accepts them (a receiver on the integrator’s machine)', () => {
    for (const url of [...loopbackNames, ...loopbackAddresses]) {
      expect(checkWebhookUrl(url, 'sandbox'), url).toEqual({ ok: true });
    }
  });

  it('a private or metadata address is refused in every environment, IPv4-mapped or trailing-dotted too', () => {
    for (const url of [
      'https://10.0.0.1./in',
      'https://[::ffff:10.0.0.1]/in',
      'https://[::ffff:169.254.169.254]/latest',
      'https://0xa9.0xfe.0xa9.0xfe/latest',
    ]) {
      expect(checkWebhookUrl(url, 'production').ok, url).toBe(false);
      expect(checkWebhookUrl(url, 'sandbox').ok, url).toBe(false);
    }
  });

  it('IPv4-compatible IPv6 (::/96, deprecated) is refused, as written and as resolved', () => {
    expect(checkWebhookUrl('https://[::127.0.0.1]/in', 'production')).toEqual({
      ok: false,
      reason: expect.stringMatching(/IPv4-compatible/),
    });
    expect(checkWebhookUrl('https://[::a00:1]/in', 'sandbox').ok).toBe(false);
    expect(checkResolvedAddress('::7f00:1', 'production').ok).toBe(false);
  });

  it('names that only end like the local host, and public hosts written with a trailing dot, pass', () => {
    for (const url of [
      'https://hooks.example.com/in',
      'https://hooks.example.com./in',
      'https://notlocalhost/in',
      'https://localhost.example.com/in',
      'https://93.184.216.34/in',
    ]) {
      expect(checkWebhookUrl(url, 'production'), url).toEqual({ ok: true });
    }
  });

  it('a host of dots only is no host', () => {
    expect(checkWebhookUrl('https://./in', 'production').ok).toBe(false);
  });
});
