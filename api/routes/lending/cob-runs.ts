/**
 * Close-of-business runs (docs/processes.md P7 "The run"; Apache Fineract's Loan COB job run by hand). Mounted at
 * `/v1/cob/runs`. Starting a run stores it with its workflow's start intent (one transaction,
 * activities/lending/open-cob-run.ts), then starts `closeOfBusinessWorkflow` through its client port and marks the
 * intent started; should the process die in between, the start-intent relay starts it (docs/processes.md P0). Reads
 * need `READ_COB` or `RUN_COB`; a run's progress comes from its workflow's query while it runs.
 */
import type { Context } from 'hono';
import { getCobRun, listCobRunErrors, type StoredCobRun } from '../../../db/queries/lending/cob-runs';
import { notFound } from '../../../domain/errors';
import type { CobRunView } from '../../../domain/lending/cob-runs';
import {
  cobRunErrorsQuery,
  cobRunErrorsResponse,
  cobRunParams,
  cobRunResponse,
  createCobRunBody,
} from '../../../domain/lending/schemas/cob-runs';
import { type AppEnv, factory } from '../../env';
import { guard, holdsPermission, requires } from '../../middleware/auth';
import { idempotent } from '../../middleware/idempotency';
import { doc } from '../../openapi';
import { startAfterCommit } from '../../start-after-commit';
import { jsonBody, noQuery, pathParams, queryParams } from '../../validation';
import { operationContext } from '../context';

const tags = ['Lending: close of business'];

/** Reads take `READ_COB`, or `RUN_COB` (who starts a run may watch it), with scope `lending:read`. */
const readsRuns = guard((c) => ({
  scope: 'lending:read',
  permission: holdsPermission(c.get('auth').permissions, 'RUN_COB') ? 'RUN_COB' : 'READ_COB',
}));

/**
 * The run as the API shows it: while RUNNING its counts come from the workflow's `progress` query (the stored row
 * once it ends); when the query cannot be answered (workflow not started yet, no worker), the stored counts.
 */
async function runView(c: Context<AppEnv>, run: StoredCobRun): Promise<CobRunView> {
  const { workflowId: _workflowId, loanIds: _loanIds, ...view } = run;
  if (run.status !== 'RUNNING') return view;
  const loans = await c
    .get('deps')
    .processes.closeOfBusiness.progress(run.workflowId)
    .catch(() => null);
  return loans ? { ...view, loans } : view;
}

export const cobRunRoutes = factory
  .createApp()
  /**
   * Starts a run of an ended day: 202 with the run (status RUNNING); the whole-tenant run of a day asked again → 200
   * with that run; a day not ended (on or after the tenant's today) or an unknown loan → 400 Shape A.
   */
  .post(
    '/',
    doc({
      tags,
      summary: 'Run close of business for a day',
      description:
        "Closes business day `businessDate` (it must have ended in the tenant's time zone) for every loan active on it, or for the loans named in `loanIds` (1 to 1000): each loan's day is closed in its own short transaction, once. A whole-tenant run covers the loans active and disbursed on or before the day and not closed for a later day: one already closed for the day is counted as processed and left alone, one closed for a later day is not part of the run (not in `loans.total`, so a day every loan has closed past reports `total` 0). A run of named loans counts every named loan in `total`; one whose `lastClosedBusinessDate` is on or after the day is counted as processed and left alone. Answers 202 with the run (`RUNNING`) and runs it as the durable process `close-of-business/<tenant>/<businessDate>` (a run of named loans: `…/<runId>`). The whole-tenant run of a day is unique: asked again it answers 200 with that run. A loan whose step fails is listed in `GET /v1/cob/runs/{runId}/errors`; the run goes on and ends `COMPLETED_WITH_ERRORS`.",
      scope: 'lending:write',
      permission: 'RUN_COB',
      mutation: true,
      responses: {
        202: { description: 'Run started', schema: cobRunResponse },
        200: { description: "The day's whole-tenant run, already started", schema: cobRunResponse },
      },
    }),
    requires('lending:write', 'RUN_COB'),
    noQuery(),
    ...jsonBody(createCobRunBody),
    idempotent(),
    async (c) => {
      const body = c.req.valid('json');
      const { activities, startMarks, processes } = c.get('deps');
      const opened = await activities.openCobRun({
        tenantId: operationContext(c).tenantId,
        businessDate: body.businessDate,
        loanIds: body.loanIds ?? null,
      });
      // Also for a run found still RUNNING: starting is idempotent, and it covers a start the relay has not made yet.
      // A run that ended is never started again.
      if (opened.created || opened.run.status === 'RUNNING') {
        await startAfterCommit(startMarks, opened.workflow, (input) =>
          processes.closeOfBusiness.start(input),
        );
      }
      return c.json(await runView(c, opened.run), opened.created ? 202 : 200);
    },
  )
  .get(
    '/:runId',
    doc({
      tags,
      summary: 'Read a close-of-business run',
      description:
        'The run with its status (`RUNNING`, `COMPLETED`, `COMPLETED_WITH_ERRORS`) and its loans `{total, processed, failed}` (live while it runs). Needs `READ_COB` or `RUN_COB`.',
      scope: 'lending:read',
      permission: 'READ_COB',
      responses: { 200: { description: 'The run', schema: cobRunResponse } },
    }),
    readsRuns,
    pathParams(cobRunParams),
    noQuery(),
    async (c) => {
      const { runId } = c.req.valid('param');
      const run = await getCobRun(c.get('deps').db, c.get('tenantId'), runId);
      if (!run) throw notFound('Close-of-business run', runId);
      return c.json(await runView(c, run), 200);
    },
  )
  .get(
    '/:runId/errors',
    doc({
      tags,
      summary: "List a close-of-business run's errors",
      description:
        'The loans whose step failed in the run, by loan id, each with its latest error (a loan that closed on a retry is not listed). Page with `limit` (1–200, default 50) and `offset`; `hasMore` says whether more follow. Needs `READ_COB` or `RUN_COB`.',
      scope: 'lending:read',
      permission: 'READ_COB',
      responses: { 200: { description: "A page of the run's errors", schema: cobRunErrorsResponse } },
    }),
    readsRuns,
    pathParams(cobRunParams),
    queryParams(cobRunErrorsQuery),
    async (c) => {
      const { runId } = c.req.valid('param');
      const query = c.req.valid('query');
      const limit = query.limit ?? 50;
      const offset = query.offset ?? 0;
      const page = await listCobRunErrors(c.get('deps').db, c.get('tenantId'), runId, { limit, offset });
      if (!page) throw notFound('Close-of-business run', runId);
      return c.json({ items: page.items, limit, offset, hasMore: page.hasMore }, 200);
    },
  );
