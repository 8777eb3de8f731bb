/**
 * The boarding benchmark's phase times (scripts/bench-boarding.ts `BoardingPhases`), read from the board CLI's
 * progress lines: staging, validation, then each kind until its last line is handled.
 */
import { describe, expect, it } from 'vitest';
import { BoardingPhases } from '../../scripts/bench-boarding';

const line = (status: string, kinds: string) =>
  `progress: ${status} 0/100 lines (0.0 %), 0.0 lines/s, ETA ? | ${kinds}`;

describe('BoardingPhases', () => {
  it('splits a run into staging, validation and each kind until its count is complete', () => {
    const phases = new BoardingPhases();
    phases.see(0.3, 'Uploading portfolio.ndjson to http://127.0.0.1:1 (tenant t)…');
    phases.see(4.7, line('VALIDATING', ''));
    phases.see(6.7, line('VALIDATING', 'charge 0/3 customer 0/10 loan 0/5 payment 0/20 verification 0/4'));
    phases.see(28.6, line('RUNNING', 'charge 3/3 customer 0/10 loan 0/5 payment 0/20 verification 0/4'));
    phases.see(50.0, line('RUNNING', 'charge 3/3 customer 6/10 loan 0/5 payment 0/20 verification 0/4'));
    phases.see(80.4, line('RUNNING', 'charge 3/3 customer 10/10 loan 1/5 payment 2/20 verification 0/4'));
    phases.see(178.8, line('RUNNING', 'charge 3/3 customer 10/10 loan 5/5 payment 20/20 verification 0/4'));
    phases.see(193.1, line('COMPLETED', 'charge 3/3 customer 10/10 loan 5/5 payment 20/20 verification 4/4'));
    expect(phases.summary(193.2)).toBe(
      'staging 4.7 s, validating 23.9 s, customer 51.8 s, loan 98.4 s, verification 14.3 s, the end 0.1 s',
    );
  });

  it('says so when it saw no progress line', () => {
    expect(new BoardingPhases().summary(3)).toBe('no progress line seen');
  });
});
