/**
 * Maker-checker (docs/servicing.md "Hardship offers": "when an operation needs approval, creator and approver must be distinct
 * eligible actors"; docs/design.md §4 "Actor context": a credential authorizes a backend, the actor names the end user).
 * An actor string is only what a backend says: one credential can name any actor. So by default the checker must
 * also be another OAuth client (another credential) than the maker's; a tenant may relax this to "the same client,
 * another actor" where one backend legitimately serves both makers and checkers. Every maker-checker path of the
 * engine decides through `makerCheckerRefusal`, so the rule is one rule.
 */
import { DomainError, fieldError } from './errors';

/**
 * A tenant's maker-checker policy:
 * - `distinct-client` (the default): the checker is another OAuth client than the maker's, and another actor;
 * - `same-client-distinct-actor`: the checker may use the maker's client, and must be another actor.
 */
export const makerCheckerPolicies = ['distinct-client', 'same-client-distinct-actor'] as const;
export type MakerCheckerPolicy = (typeof makerCheckerPolicies)[number];

/** The policy of a tenant that has not chosen one. */
export const defaultMakerCheckerPolicy: MakerCheckerPolicy = 'distinct-client';

/** The scope an eligible checker's token holds (docs/design.md §4 "Scopes and permissions": `actions:approve`, second-person approval). */
export const checkerScope = 'actions:approve';

export function isMakerCheckerPolicy(value: unknown): value is MakerCheckerPolicy {
  return (makerCheckerPolicies as readonly unknown[]).includes(value);
}

/** Who took a maker or checker step: the `Service-Actor` and the OAuth client whose token was used. */
export interface MakerCheckerParty {
  actor: string;
  /** The client id; null only for a maker step recorded before client ids were kept. */
  clientId: string | null;
}

/** The checker: its party, and the scopes of the token it decides with. */
export interface MakerCheckerChecker extends MakerCheckerParty {
  clientId: string;
  scopes: readonly string[];
}

const refused = (message: string, parameterName: string, value: string | null) =>
  new DomainError('error.msg.not.authorized', message, {
    errors: [fieldError(parameterName, value, message, 'error.msg.not.authorized')],
  });

/**
 * Why `checker` may not decide what `maker` made under `policy` (a 403 `error.msg.not.authorized`), or null when it
 * may. `subject` names what is decided (e.g. "hardship offer 12"), for the message. In order:
 * - the checker's token lacks `actions:approve` → 403 naming `scope`;
 * - the same actor → 403 naming `header.Service-Actor` (every policy);
 * - `distinct-client` and the same client → 403 naming `header.Authorization` (value: the client id);
 * - `distinct-client` and the maker's client unknown (a maker step recorded before client ids were kept) → 403
 *   naming `header.Authorization`: distinct clients cannot be shown, so the step is refused rather than assumed.
 */
export function makerCheckerRefusal(
  policy: MakerCheckerPolicy,
  maker: MakerCheckerParty,
  checker: MakerCheckerChecker,
  subject: string,
): DomainError | null {
  if (!checker.scopes.includes(checkerScope)) {
    return refused(`The token lacks the scope ${checkerScope} that a checker holds.`, 'scope', null);
  }
  if (checker.actor === maker.actor) {
    return refused(
      `header.Service-Actor: ${checker.actor} made ${subject}; another actor must decide it (maker-checker).`,
      'header.Service-Actor',
      checker.actor,
    );
  }
  if (policy === 'distinct-client') {
    if (maker.clientId === null) {
      return refused(
        `header.Authorization: ${subject} was made before maker client ids were recorded, and the tenant's maker-checker policy distinct-client requires a checker client other than the maker's; it cannot be shown, so the decision is refused.`,
        'header.Authorization',
        checker.clientId,
      );
    }
    if (maker.clientId === checker.clientId) {
      return refused(
        `header.Authorization: client ${checker.clientId} made ${subject}; under the tenant's maker-checker policy distinct-client another client (credential) must decide it.`,
        'header.Authorization',
        checker.clientId,
      );
    }
  }
  return null;
}
