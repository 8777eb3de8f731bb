/**
 * docs/design.md §6: "a 360-installment schedule plus its APR: ≤ 1 ms median". Times generateSchedule followed by
 * buildAprDisclosure (amount financed, totals, payment groups and the Appendix J APR) for 360 monthly
 * installments in several variants, after a warm-up, and prints median, p90 and p99 per variant with the
 * verdict on the target. It prints figures only; nothing here is a test.
 *
 * Baselines measured in the same run, for the ratios docs/design.md §6 asks for: the schedule alone, and the
 * schedule plus the APR by `computeAprReference` (the 40-digit solver computeApr used before the fast path;
 * fewer runs, it is slow).
 *
 * Usage: npm run bench:schedule [-- --runs 2000 --warmup 300]. `runScheduleBenchmark` is what `npm run bench`
 * (bench/index.ts) calls.
 */
import { computeAprReference } from '../domain/lending/apr';
import { type AprDisclosureInput, buildAprDisclosure } from '../domain/lending/disclosure';
import { generateSchedule, type Schedule, type ScheduleInput } from '../domain/lending/schedule';
import { type BenchLog, isMainModule, option } from './support';

const TARGET_MEDIAN_MS = 1;

const base: ScheduleInput = {
  principal: '250000.00',
  numberOfRepayments: 360,
  repaymentEvery: 1,
  repaymentFrequencyType: 2,
  interestRatePerPeriod: '6.5',
  interestRateFrequencyType: 3,
  interestType: 0,
  amortizationType: 1,
  interestCalculationPeriodType: 1,
  allowPartialPeriodInterestCalcualtion: false,
  daysInYearType: 1,
  daysInMonthType: 1,
  expectedDisbursementDate: '2026-01-31',
  currency: { code: 'USD', digitsAfterDecimal: 2 },
};
const fee = { chargeTimeType: 1 as const, chargeCalculationType: 1 as const, amount: '2500.00' };

interface Variant {
  name: string;
  schedule: ScheduleInput;
  prepaidFee: boolean;
}

const variants: Variant[] = [
  { name: 'declining balance, equal installments', schedule: base, prepaidFee: false },
  {
    name: 'declining balance, equal installments, 1 % prepaid fee',
    schedule: { ...base, charges: [fee] },
    prepaidFee: true,
  },
  {
    name: 'declining balance, equal principal (360 different payments), 1 % fee',
    schedule: { ...base, amortizationType: 0, charges: [fee] },
    prepaidFee: true,
  },
  {
    name: 'declining balance, daily interest (actual days), equal installments, 1 % fee',
    schedule: { ...base, interestCalculationPeriodType: 0, charges: [fee] },
    prepaidFee: true,
  },
  {
    name: 'flat interest, equal installments, 1 % fee',
    schedule: { ...base, interestType: 1, charges: [fee] },
    prepaidFee: true,
  },
];

function disclosureInput(schedule: Schedule, prepaidFee: boolean): AprDisclosureInput {
  return {
    schedule,
    disbursementDate: schedule.periods[0].dueDate,
    repaymentFrequency: { every: 1, unit: 'MONTHS' },
    prepaidFinanceCharges: prepaidFee ? [{ name: 'Origination fee', amount: fee.amount }] : [],
    aprRounding: 'NEAREST_0_01_PERCENT_HALF_UP',
    aprTolerancePolicy: 'IRREGULAR',
  };
}

/** Milliseconds of each of `count` runs of `work`, after `warm` unmeasured runs. */
function measure(work: () => unknown, count: number, warm: number): number[] {
  for (let k = 0; k < warm; k++) work();
  const times: number[] = [];
  for (let k = 0; k < count; k++) {
    const start = process.hrtime.bigint();
    work();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times.sort((a, b) => a - b);
}

/** Nearest-rank percentile of sorted times. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const ms = (value: number) => `${value.toFixed(3)} ms`;

/** What `runScheduleBenchmark` is asked to do. */
export interface ScheduleOptions {
  /** Measured runs per variant (at least 1,000); default 2,000. */
  runs: number;
  /** Unmeasured runs first; default 300. */
  warmup: number;
  /** Runs of the slow 40-digit reference; default 60. */
  referenceRuns: number;
  log: BenchLog;
}

/** Per variant: medians (ms) of schedule + disclosure, the schedule alone and schedule + reference APR. */
export interface ScheduleFigures {
  variants: {
    name: string;
    medianMs: number;
    p99Ms: number;
    scheduleAloneMedianMs: number;
    referenceMedianMs: number;
  }[];
  runs: number;
}

/** Runs the schedule benchmark (P4 of `npm run bench`): prints the detail lines to `options.log`, returns the figures. */
export function runScheduleBenchmark(options: ScheduleOptions): ScheduleFigures {
  const runs = Math.max(options.runs, 1000);
  const { warmup, referenceRuns, log } = options;
  log(
    `generateSchedule + buildAprDisclosure, 360 monthly installments; ${runs} runs after ${warmup} warm-up runs ` +
      `(node ${process.version}, ${process.platform}/${process.arch})\n`,
  );
  const figures: ScheduleFigures = { variants: [], runs };
  let allMet = true;
  for (const variant of variants) {
    const sample = generateSchedule(variant.schedule);
    const disclosure = buildAprDisclosure(disclosureInput(sample, variant.prepaidFee));

    const scheduleOnly = measure(() => generateSchedule(variant.schedule), runs, warmup);
    const full = measure(
      () => buildAprDisclosure(disclosureInput(generateSchedule(variant.schedule), variant.prepaidFee)),
      runs,
      warmup,
    );
    const reference = measure(
      () => {
        const schedule = generateSchedule(variant.schedule);
        return computeAprReference({
          amountFinanced: disclosure.amountFinanced,
          advanceDate: schedule.periods[0].dueDate,
          unitPeriod: 'MONTH',
          payments: schedule.periods.slice(1).map((p) => ({
            amount: p.totalDueForPeriod,
            date: p.dueDate,
          })),
        });
      },
      referenceRuns,
      3,
    );

    const median = percentile(full, 50);
    const met = median <= TARGET_MEDIAN_MS;
    allMet &&= met;
    figures.variants.push({
      name: variant.name,
      medianMs: median,
      p99Ms: percentile(full, 99),
      scheduleAloneMedianMs: percentile(scheduleOnly, 50),
      referenceMedianMs: percentile(reference, 50),
    });
    log(`${variant.name}`);
    log(
      `  APR ${disclosure.annualPercentageRate} % (exact ${disclosure.aprExact}), ` +
        `${disclosure.paymentSchedule.length} payment group(s), finance charge ${disclosure.financeCharge}`,
    );
    log(
      `  schedule + disclosure: median ${ms(median)}, p90 ${ms(percentile(full, 90))}, ` +
        `p99 ${ms(percentile(full, 99))}  → target ≤ ${TARGET_MEDIAN_MS} ms median ${met ? 'MET' : 'NOT MET'}`,
    );
    log(
      `  baseline schedule alone: median ${ms(percentile(scheduleOnly, 50))} ` +
        `(disclosure adds ${ms(median - percentile(scheduleOnly, 50))}, ratio ${(median / percentile(scheduleOnly, 50)).toFixed(2)})`,
    );
    log(
      `  baseline schedule + 40-digit reference APR (${referenceRuns} runs): median ${ms(percentile(reference, 50))} ` +
        `(${(percentile(reference, 50) / median).toFixed(1)}× slower)\n`,
    );
  }
  log(
    `docs/design.md §6 target (≤ ${TARGET_MEDIAN_MS} ms median) ${allMet ? 'holds for every variant' : 'is NOT met'}.`,
  );
  return figures;
}

if (isMainModule(import.meta.url)) {
  runScheduleBenchmark({
    runs: option('runs', 2000),
    warmup: option('warmup', 300),
    referenceRuns: option('reference-runs', 60),
    log: (line) => console.log(line),
  });
}
