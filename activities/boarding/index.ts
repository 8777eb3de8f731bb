/**
 * Operations of portfolio boarding (docs/processes.md P3), each also a Temporal activity of
 * `boardingWorkflow`: validate a page of a batch's lines (validate.ts), plan chunks of lines
 * (plan-boarding-chunks.ts) and board them through the same operations the routes use (board-boarding-chunk.ts),
 * record the batch's status and counts on its row (record-boarding-progress.ts), and purge the raw lines of
 * finished batches after their retention (purge.ts).
 */
import type { Deps } from '../deps';
import { boardBoardingChunk } from './board-boarding-chunk';
import { planBoardingChunks } from './plan-boarding-chunks';
import { purgeBoardingRawLines } from './purge';
import { recordBoardingProgress } from './record-boarding-progress';
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
