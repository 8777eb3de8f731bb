/**
 * The Temporal payload codec (workers/payload-codec.ts: AES-256-GCM, NIST SP 800-38D, Temporal's encryption-codec
 * wire form) and its configuration (workers/config.ts `TEMPORAL_PAYLOAD_KEYS`, `TEMPORAL_PAYLOAD_KEY_ID`, the
 * sandbox's generated key, `TEMPORAL_CODEC_*`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, payloadKeyringOf } from '../../workers/config';
import { EncryptionCodec, encryptedEncoding, encryptionKeyIdMetadataKey } from '../../workers/payload-codec';

const keyA = 'a1'.repeat(32);
const keyB = 'b2'.repeat(32);
const text = (bytes: Uint8Array | null | undefined) => new TextDecoder().decode(bytes ?? new Uint8Array());

/** A payload as the SDK's default converter makes it from `value` (json/plain). */
const plain = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);

describe('EncryptionCodec', () => {
  const codec = new EncryptionCodec({ currentKeyId: 'k1', keys: { k1: keyA } });
  const personal = { customerRef: 'cus_jane', email: 'jane@example.com', amountMinor: 12_345 };

  it('round trip: encodes to binary/encrypted with the key id, decodes to the very payload', async () => {
    const original = plain(personal);
    const [sealed] = await codec.encode([original]);
    expect(text(sealed?.metadata?.encoding)).toBe(encryptedEncoding);
    expect(text(sealed?.metadata?.[encryptionKeyIdMetadataKey])).toBe('k1');
    // Nothing of the clear payload survives in the stored form: neither its data nor its metadata.
    expect(Object.keys(sealed?.metadata ?? {}).sort()).toEqual(['encoding', encryptionKeyIdMetadataKey]);
    expect(Buffer.from(sealed?.data ?? []).includes('cus_jane')).toBe(false);
    const [opened] = await codec.decode([sealed as Payload]);
    expect(text(opened?.metadata?.encoding)).toBe('json/plain');
    expect(defaultPayloadConverter.fromPayload(opened as Payload)).toEqual(personal);
  });

  it('draws a fresh 96-bit IV per payload: the same value twice gives two different ciphertexts', async () => {
    const [one, two] = await codec.encode([plain(personal), plain(personal)]);
    expect(
      Buffer.from(one?.data ?? [])
        .subarray(0, 12)
        .equals(Buffer.from(two?.data ?? []).subarray(0, 12)),
    ).toBe(false);
    expect(Buffer.from(one?.data ?? []).equals(Buffer.from(two?.data ?? []))).toBe(false);
  });

  it('detects tampering: a flipped ciphertext bit, a flipped tag bit, a relabelled key id all fail (GCM)', async () => {
    const [sealed] = (await codec.encode([plain(personal)])) as [Payload];
    const flipped = (at: number) => {
      const data = Buffer.from(sealed.data as Uint8Array);
      data[at] = (data[at] as number) ^ 1;
      return { ...sealed, data: new Uint8Array(data) };
    };
    await expect(codec.decode([flipped(14)])).rejects.toThrow(/failed authentication under key id "k1"/);
    await expect(codec.decode([flipped((sealed.data as Uint8Array).length - 1)])).rejects.toThrow(
      /failed authentication/,
    );
    // The key id is authenticated data: a payload moved under another known key's id does not open.
    const twoKeys = new EncryptionCodec({ currentKeyId: 'k1', keys: { k1: keyA, k2: keyA } });
    const relabelled = {
      ...sealed,
      metadata: { ...sealed.metadata, [encryptionKeyIdMetadataKey]: new TextEncoder().encode('k2') },
    };
    await expect(twoKeys.decode([relabelled])).rejects.toThrow(/failed authentication under key id "k2"/);
    await expect(codec.decode([{ ...sealed, data: new Uint8Array(10) }])).rejects.toThrow(/too short/);
  });

  it('rotation: the new current key encrypts, the old key still decrypts what it sealed', async () => {
    const before = new EncryptionCodec({ currentKeyId: 'k1', keys: { k1: keyA } });
    const [old] = (await before.encode([plain('sealed under k1')])) as [Payload];
    const rotated = new EncryptionCodec({ currentKeyId: 'k2', keys: { k1: keyA, k2: keyB } });
    const [fresh] = (await rotated.encode([plain('sealed under k2')])) as [Payload];
    expect(text(fresh.metadata?.[encryptionKeyIdMetadataKey])).toBe('k2');
    const [a, b] = (await rotated.decode([old, fresh])) as [Payload, Payload];
    expect(defaultPayloadConverter.fromPayload(a)).toBe('sealed under k1');
    expect(defaultPayloadConverter.fromPayload(b)).toBe('sealed under k2');
    // The retired key alone cannot read the new payload.
    await expect(before.decode([fresh])).rejects.toThrow(/unknown key id "k2"/);
  });

  it('passes plain payloads through decode unchanged (histories recorded before encryption)', async () => {
    const payloads = [
      plain({ a: 1 }),
      plain(null),
      plain(new Uint8Array([1, 2, 3])),
      { metadata: {}, data: null },
    ];
    const decoded = await codec.decode(payloads);
    expect(decoded).toHaveLength(4);
    for (const [i, p] of decoded.entries()) expect(p).toBe(payloads[i]);
  });

  it('names an unknown key id in its error, never a key', async () => {
    const other = new EncryptionCodec({ currentKeyId: 'retired-2025', keys: { 'retired-2025': keyB } });
    const [sealed] = (await other.encode([plain(personal)])) as [Payload];
    const failure = await codec.decode([sealed]).then(
      () => null,
      (err: Error) => err,
    );
    expect(failure?.message).toMatch(/unknown key id "retired-2025"/);
    expect(failure?.message).not.toContain(keyA);
    expect(failure?.message).not.toContain(keyB);
    const [withoutId] = (await codec.encode([plain(1)])) as [Payload];
    delete withoutId.metadata?.[encryptionKeyIdMetadataKey];
    await expect(codec.decode([withoutId])).rejects.toThrow(/no encryption-key-id/);
  });

  it('refuses a keyring that is empty, has a short key or does not hold its current id', () => {
    expect(() => new EncryptionCodec({ currentKeyId: 'k1', keys: {} })).toThrow(/no key/);
    expect(() => new EncryptionCodec({ currentKeyId: 'k1', keys: { k1: 'ab' } })).toThrow(
      /"k1" must be 64 hex/,
    );
    expect(() => new EncryptionCodec({ currentKeyId: 'k9', keys: { k1: keyA } })).toThrow(
      /"k9" is not among/,
    );
  });
});

describe('TEMPORAL_PAYLOAD_KEYS / TEMPORAL_PAYLOAD_KEY_ID', () => {
  const base = {
    SECRET_PEPPER: 'p'.repeat(64),
    CURSOR_SIGNING_KEY: 'c'.repeat(64),
    DATA_ENCRYPTION_KEY: 'd'.repeat(64),
  };
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('parses id:hex64 pairs; the current id is named, or the only key', () => {
    expect(payloadKeyringOf(`k1:${keyA},k2:${keyB}`, 'k2')).toEqual({
      currentKeyId: 'k2',
      keys: { k1: keyA, k2: keyB },
    });
    expect(payloadKeyringOf(`only:${keyA}`, undefined)).toEqual({
      currentKeyId: 'only',
      keys: { only: keyA },
    });
  });

  it.each([
    [`k1:${keyA},k2:${keyB}`, undefined, /TEMPORAL_PAYLOAD_KEY_ID must name/],
    [`k1:${keyA}`, 'k2', /"k2" is not among/],
    [`k1:${keyA},k1:${keyB}`, 'k1', /"k1" twice/],
    ['k1:abc', 'k1', /"k1" must be 64 hex/],
    [keyA, undefined, /id:hex64/],
    [`bad id:${keyA}`, undefined, /id:hex64/],
  ])('refuses %j (current %j) without echoing a key', (keys, current, message) => {
    let failure: Error | null = null;
    try {
      payloadKeyringOf(keys, current);
    } catch (err) {
      failure = err as Error;
    }
    expect(failure?.message).toMatch(message);
    expect(failure?.message).not.toContain(keyA);
    expect(failure?.message).not.toContain(keyB);
  });

  it('production refuses to start without them', () => {
    expect(() => loadConfig({ ...base, SERVICE_ENVIRONMENT: 'production' })).toThrow(/TEMPORAL_PAYLOAD_KEYS/);
    const config = loadConfig({
      ...base,
      SERVICE_ENVIRONMENT: 'production',
      TEMPORAL_PAYLOAD_KEYS: `2026-01:${keyA},2026-06:${keyB}`,
      TEMPORAL_PAYLOAD_KEY_ID: '2026-06',
    });
    expect(config.temporalPayloadKeys).toEqual({
      currentKeyId: '2026-06',
      keys: { '2026-01': keyA, '2026-06': keyB },
    });
  });

  it('sandbox without them: one key generated into the data folder, the same for every later process', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'payload-keys-'));
    dirs.push(dir);
    const first = loadConfig({ ...base, DATA_DIR: dir }).temporalPayloadKeys;
    expect(first.currentKeyId).toBe('dev-1');
    expect(first.keys['dev-1']).toMatch(/^[0-9a-f]{64}$/);
    expect(loadConfig({ ...base, DATA_DIR: dir }).temporalPayloadKeys).toEqual(first);
    // Another data folder: another key.
    const other = mkdtempSync(path.join(tmpdir(), 'payload-keys-'));
    dirs.push(other);
    expect(loadConfig({ ...base, DATA_DIR: other }).temporalPayloadKeys.keys['dev-1']).not.toBe(
      first.keys['dev-1'],
    );
  });

  it('codec endpoint: off in production unless set, and then only with a token', () => {
    const keys = { ...base, TEMPORAL_PAYLOAD_KEYS: `k1:${keyA}` };
    expect(loadConfig({ ...keys, SERVICE_ENVIRONMENT: 'production' }).codecEndpoint.address).toBeUndefined();
    expect(() =>
      loadConfig({ ...keys, SERVICE_ENVIRONMENT: 'production', TEMPORAL_CODEC_ADDRESS: '127.0.0.1:8234' }),
    ).toThrow(/TEMPORAL_CODEC_TOKEN/);
    expect(() => loadConfig({ ...keys, TEMPORAL_CODEC_ADDRESS: '0.0.0.0:8234' })).toThrow(
      /TEMPORAL_CODEC_TOKEN/,
    );
    expect(loadConfig({ ...keys, TEMPORAL_CODEC_ADDRESS: '127.0.0.1:8234' }).codecEndpoint).toEqual({
      address: '127.0.0.1:8234',
      token: undefined,
      allowedOrigins: ['http://127.0.0.1:8233', 'http://localhost:8233'],
    });
    expect(() => loadConfig({ ...keys, TEMPORAL_CODEC_ADDRESS: 'nowhere' })).toThrow(/host:port/);
    expect(() => loadConfig({ ...keys, TEMPORAL_CODEC_TOKEN: 'short' })).toThrow(/16 to 256/);
    expect(() => loadConfig({ ...keys, TEMPORAL_CODEC_UI_ORIGINS: 'ui.example.com' })).toThrow(/origins/);
  });
});
