import { validationError } from '../../domain/errors';

/** The `Service-Actor` a maker-checker step needs; 400 naming `header.Service-Actor` when absent. */
export function requireActor(actor: string | null | undefined): string {
  if (!actor) {
    throw validationError(
      'header.Service-Actor',
      null,
      'header.Service-Actor is required: maker-checker records name the actor of each step.',
    );
  }
  return actor;
}
