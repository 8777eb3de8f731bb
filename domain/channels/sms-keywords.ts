/**
 * SMS opt-out keywords (TCPA, 47 CFR §64.1200(a)(12) as amended by the FCC's 2024 Report and
 * Order on revocation of consent: a reply of "stop", "quit", "end", "revoke", "opt out", "cancel"
 * or "unsubscribe" is a revocation; CTIA Messaging Principles add STOPALL). A message is an
 * opt-out when its whole text, trimmed and case-folded, is one of these words.
 */
const optOutKeywords = new Set([
  'STOP',
  'STOPALL',
  'STOP ALL',
  'QUIT',
  'END',
  'REVOKE',
  'OPT OUT',
  'OPTOUT',
  'CANCEL',
  'UNSUBSCRIBE',
]);

/** True when `text` is an opt-out reply (whole message, trimmed, case-insensitive, inner spaces collapsed). */
export function isSmsOptOut(text: string): boolean {
  const folded = text
    .trim()
    .replace(/\s+/g, ' ')
    .replace(/[.!]+$/, '')
    .toUpperCase();
  return optOutKeywords.has(folded);
}
