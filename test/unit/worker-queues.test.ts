/**
 * The worker entry's choices (workers/run.ts): which queues `--queues` names, and how many
 * activity slots each gets from the database pool (docs/processes.md P0 "worker activity slots
 * sized to the database pool, per queue").
 */
import { describe, expect, it } from 'vitest';
import { activitySlotsPerQueue, parseQueues } from '../../workers/run';

describe('parseQueues', () => {
  it('defaults to every registered queue and keeps the order given, without duplicates', () => {
    expect(parseQueues(undefined)).toEqual([
      'servicing',
      'lending',
      'boarding',
      'webhooks',
      'webhooks-backlog',
    ]);
    expect(parseQueues('')).toEqual(['servicing', 'lending', 'boarding', 'webhooks', 'webhooks-backlog']);
    expect(parseQueues('lending, servicing,lending')).toEqual(['lending', 'servicing']);
  });

  it('refuses unknown queues, naming them and the known ones', () => {
    expect(() => parseQueues('servicing,nope')).toThrow(
      'unknown task queue(s): nope; known: servicing, lending, boarding, webhooks',
    );
    expect(() => parseQueues(',')).toThrow('unknown task queue(s): (none)');
  });
});

describe('activitySlotsPerQueue', () => {
  it('shares the pool between queues, one connection kept for the background services', () => {
    expect(activitySlotsPerQueue(10, 1, true)).toBe(9);
    expect(activitySlotsPerQueue(10, 2, true)).toBe(4);
    expect(activitySlotsPerQueue(10, 2, false)).toBe(5);
    expect(activitySlotsPerQueue(5, 1, true)).toBe(4);
  });

  it('never sums to more than the pool, and never drops below one slot', () => {
    for (let pool = 1; pool <= 40; pool++) {
      for (let queues = 1; queues <= 4; queues++) {
        for (const background of [true, false]) {
          const slots = activitySlotsPerQueue(pool, queues, background);
          expect(slots).toBeGreaterThanOrEqual(1);
          if (pool > queues) expect(slots * queues).toBeLessThanOrEqual(pool);
        }
      }
    }
  });
});
