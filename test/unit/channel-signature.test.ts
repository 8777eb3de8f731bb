/**
 * domain/channels: the gateway signature (docs/design.md §5 "Inbound channel events") checked against
 * Node's own HMAC, and the SMS opt-out keywords (47 CFR §64.1200(a)(12)).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  gatewaySignatureOf,
  parseGatewaySignature,
  verifyGatewaySignature,
} from '../../domain/channels/gateway-signature';
import { isSmsOptOut } from '../../domain/channels/sms-keywords';

const body = new TextEncoder().encode('{"eventId":"e1","eventType":"sms.inbound"}');
const t = 1_795_000_000;
const nodeHmac = (secret: string, ts: number, bytes: Uint8Array) =>
  createHmac('sha256', secret).update(`${ts}.`).update(bytes).digest('hex');

describe('gateway signature', () => {
  it('is HMAC-SHA256 over "<t>." and the raw bytes, as Node computes it', () => {
    expect(gatewaySignatureOf('gws_secret', t, body)).toBe(nodeHmac('gws_secret', t, body));
    const binary = new Uint8Array([0xff, 0x00, 0xc3, 0x28]);
    expect(gatewaySignatureOf('k', 1, binary)).toBe(nodeHmac('k', 1, binary));
  });

  it('parses t and every v1, ignores other schemes, refuses malformed headers', () => {
    const a = 'a'.repeat(64);
    const b = 'B'.repeat(64);
    expect(parseGatewaySignature(`t=${t},v1=${a},v0=zz,v1=${b}`)).toEqual({
      timestampSeconds: t,
      signatures: [a, 'b'.repeat(64)],
    });
    for (const bad of [
      undefined,
      '',
      `v1=${a}`,
      `t=${t}`,
      `t=x,v1=${a}`,
      `t=${t},v1=abc`,
      `t=${t},t=${t},v1=${a}`,
      'garbage',
    ]) {
      expect(parseGatewaySignature(bad), String(bad)).toBeNull();
    }
  });

  it('accepts any listed secret within 300 s and says why it refuses', () => {
    const header = `t=${t},v1=${nodeHmac('new', t, body)}`;
    expect(verifyGatewaySignature(header, body, ['old', 'new'], t * 1000 + 300_000)).toEqual({ ok: true });
    expect(verifyGatewaySignature(header, body, ['old'], t * 1000)).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(verifyGatewaySignature(header, body, ['new'], t * 1000 + 301_000)).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifyGatewaySignature(header, body, ['new'], t * 1000 - 301_000)).toEqual({
      ok: false,
      reason: 'stale',
    });
    const tampered = new TextEncoder().encode('{"eventId":"e2","eventType":"sms.inbound"}');
    expect(verifyGatewaySignature(header, tampered, ['new'], t * 1000)).toEqual({
      ok: false,
      reason: 'mismatch',
    });
    expect(verifyGatewaySignature('nonsense', body, ['new'], t * 1000)).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(verifyGatewaySignature(header, body, [], t * 1000)).toEqual({ ok: false, reason: 'no-secret' });
  });
});

describe('SMS opt-out keywords', () => {
  it('recognizes the whole-message opt-out words in any case and spacing', () => {
    for (const text of [
      'STOP',
      'stop',
      ' Stop. ',
      'STOP ALL',
      'stopall',
      'Unsubscribe',
      'cancel',
      'END',
      'quit',
      'revoke',
      'opt  out',
      'OPTOUT',
    ]) {
      expect(isSmsOptOut(text), text).toBe(true);
    }
    for (const text of ['', 'please stop calling me at work', 'STOPPED', 'start', 'help', 'STOP?']) {
      expect(isSmsOptOut(text), text).toBe(false);
    }
  });
});
