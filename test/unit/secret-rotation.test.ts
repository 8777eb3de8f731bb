/** domain/secret-rotation.ts: at most two valid secrets after a rotation, the previous one for the overlap. */
import { describe, expect, it } from 'vitest';
import {
  isValidOverlapSeconds,
  rotationExpiries,
  secretRotationOverlapSeconds,
} from '../../domain/secret-rotation';

const now = new Date('2026-11-23T12:00:00.000Z');
const at = (iso: string) => new Date(iso);

describe('secret rotation', () => {
  it('keeps the newest previous secret for the overlap and ends older ones now', () => {
    const { updates, previousSecretExpiresAt } = rotationExpiries(
      [
        { id: 1, expiresAt: at('2026-11-23T20:00:00.000Z') },
        { id: 2, expiresAt: null },
      ],
      now,
      3600,
    );
    expect(previousSecretExpiresAt).toEqual(at('2026-11-23T13:00:00.000Z'));
    expect(updates).toEqual([
      { id: 1, expiresAt: now },
      { id: 2, expiresAt: at('2026-11-23T13:00:00.000Z') },
    ]);
  });

  it('leaves a secret that already ends before its new end alone; 0 retires the previous at once', () => {
    expect(
      rotationExpiries([{ id: 'a', expiresAt: at('2026-11-23T12:30:00.000Z') }], now, 7200).updates,
    ).toEqual([]);
    expect(rotationExpiries([{ id: 'a', expiresAt: null }], now, 0).updates).toEqual([
      { id: 'a', expiresAt: now },
    ]);
    expect(rotationExpiries([], now, 60).updates).toEqual([]);
  });

  it('bounds the overlap to whole seconds from 0 to 7 days', () => {
    expect(secretRotationOverlapSeconds).toEqual({ default: 86_400, max: 604_800 });
    for (const ok of [0, 1, 86_400, 604_800]) expect(isValidOverlapSeconds(ok)).toBe(true);
    for (const bad of [-1, 604_801, 1.5, Number.NaN]) expect(isValidOverlapSeconds(bad)).toBe(false);
  });
});
