/**
 * Operations of portfolio boarding (docs/processes.md P3), each also a Temporal activity of
 * `boardingWorkflow`: validate a page of a batch's lines (validate.ts), plan and board chunks of lines through the
 * same operations the routes use (board.ts), record the batch's status and counts on its row, and purge the raw
 * lines of finished batches after their retention (purge.ts).
 */
import type { Deps } from '../deps';
import { boardBoardingChunk, planBoardingChunks, recordBoardingProgress } from './board';
import { purgeBoardingRawLines } from './purge';
import { validateBoardingPage } from './validate';

export function createBoardingActivities(deps: Deps) {
  return {
    validateBoardingPage: validateBoardingPage(deps),
    planBoardingChunks: planBoardingChunks(deps),
    boardBoardingChunk: boardBoardingChunk(deps),
    recordBoardingProgress: recordBoardingProgress(deps),
    purgeBoardingRawLines: purgeBoardingRawLines(deps),
  };
}
