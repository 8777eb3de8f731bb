import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fromBase64Url,
  hmacSha256,
  hmacSha256Hex,
  sha256Hex,
  timingSafeEqualText,
  toBase64Url,
} from '../../domain/hash';

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 test vectors', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('property: equals node:crypto on UTF-8 text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
      }),
    );
  });
});

describe('hmacSha256', () => {
  it('matches RFC 4231 test case 2', () => {
    expect(hmacSha256Hex('Jefe', 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('property: equals node:crypto, raw and hex', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (key, message) => {
        const expected = createHmac('sha256', Buffer.from(key, 'utf8')).update(message, 'utf8').digest();
        expect(Buffer.from(hmacSha256(key, message)).equals(expected)).toBe(true);
        expect(hmacSha256Hex(key, message)).toBe(expected.toString('hex'));
      }),
    );
  });
});

describe('base64url', () => {
  it('encodes RFC 4648 test vectors without padding', () => {
    const enc = (s: string) => toBase64Url(new TextEncoder().encode(s));
    expect(enc('')).toBe('');
    expect(enc('f')).toBe('Zg');
    expect(enc('fo')).toBe('Zm8');
    expect(enc('foo')).toBe('Zm9v');
    expect(enc('foobar')).toBe('Zm9vYmFy');
    expect(toBase64Url(new Uint8Array([0xfb, 0xff, 0xbf]))).toBe('-_-_');
  });

  it('property: round-trips any bytes and agrees with Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const text = toBase64Url(bytes);
        expect(text).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(text).toBe(Buffer.from(bytes).toString('base64url'));
        expect(fromBase64Url(text)).toEqual(bytes);
      }),
    );
  });

  it.each(['a+b', 'a/b', 'Zg==', 'Zm 9v', 'A', 'é'])('rejects %j', (text) => {
    expect(fromBase64Url(text)).toBeNull();
  });
});

describe('timingSafeEqualText', () => {
  it('compares equal-length strings and refuses different lengths', () => {
    expect(timingSafeEqualText('abc', 'abc')).toBe(true);
    expect(timingSafeEqualText('abc', 'abd')).toBe(false);
    expect(timingSafeEqualText('abc', 'abcd')).toBe(false);
    expect(timingSafeEqualText('', '')).toBe(true);
  });

  it('property: agrees with ===', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), (a, b) => {
        expect(timingSafeEqualText(a, b)).toBe(a === b);
        expect(timingSafeEqualText(a, a)).toBe(true);
      }),
    );
  });
});
