/**
 * Mints the opaque ids of AI sessions and their outputs (`<prefix><24 letters>`; domain/servicing/ai-sessions.ts
 * `opaqueIdFromBytes`), shared by the operations that open a session and record its outputs.
 */
import { randomBytes } from 'node:crypto';
import { opaqueIdFromBytes } from '../../domain/servicing/ai-sessions';

/** A fresh opaque id `<prefix><24 letters>` (≈ 137 random bits, letters only; domain/servicing/ai-sessions.ts). */
export function mintOpaqueId(prefix: string): string {
  for (;;) {
    const id = opaqueIdFromBytes(prefix, randomBytes(48));
    if (id !== null) return id;
  }
}
