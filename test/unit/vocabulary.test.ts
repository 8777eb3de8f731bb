import { describe, expect, it } from 'vitest';
import { credentialPrefix, isPermission, isScope, permissions, scopes } from '../../domain/auth';
import { privacyRequestWorkflowId, taskQueues } from '../../domain/ids';
import {
  isTerminalPrivacyStatus,
  openPrivacyStatuses,
  privacyOutcomes,
  privacyRequestTypes,
} from '../../domain/servicing/privacy-request';

describe('ids', () => {
  it('builds privacy-request/<tenant>/<requestId>', () => {
    expect(privacyRequestWorkflowId('acme', 42)).toBe('privacy-request/acme/42');
    expect(privacyRequestWorkflowId('acme', '42')).toBe(privacyRequestWorkflowId('acme', 42));
    expect(privacyRequestWorkflowId('acme', 1)).not.toBe(privacyRequestWorkflowId('acme-2', 1));
  });

  it('has one distinct task queue per worker group', () => {
    const queues = Object.values(taskQueues);
    expect(new Set(queues).size).toBe(queues.length);
    expect(taskQueues.servicing).toBe('servicing');
  });
});

describe('auth vocabulary', () => {
  it('knows the spec scopes and nothing else', () => {
    for (const scope of scopes) expect(isScope(scope)).toBe(true);
    expect(isScope('servicing:admin')).toBe(false);
    expect(isScope('')).toBe(false);
  });

  it('knows every permission and ALL', () => {
    for (const p of permissions) expect(isPermission(p)).toBe(true);
    expect(isPermission('ALL')).toBe(true);
    expect(isPermission('all')).toBe(false);
    expect(isPermission('DELETE_EVERYTHING')).toBe(false);
  });

  it('prefixes credentials by environment', () => {
    expect(credentialPrefix('at', 'sandbox')).toBe('at_test_');
    expect(credentialPrefix('at', 'production')).toBe('at_live_');
    expect(credentialPrefix('cs', 'sandbox')).toBe('cs_test_');
    expect(credentialPrefix('cs', 'production')).toBe('cs_live_');
  });
});

describe('privacy-request statuses', () => {
  it('ends the process on the outcomes only (docs/design.md §5)', () => {
    for (const outcome of privacyOutcomes) expect(isTerminalPrivacyStatus(outcome)).toBe(true);
    for (const open of openPrivacyStatuses) expect(isTerminalPrivacyStatus(open)).toBe(false);
    expect(isTerminalPrivacyStatus('UNKNOWN')).toBe(false);
    expect(privacyOutcomes).toEqual([
      'FULFILLED',
      'PARTIALLY_FULFILLED',
      'DENIED',
      'DENIED_EXEMPT',
      'WITHDRAWN',
    ]);
    expect(openPrivacyStatuses).toEqual(['RECEIVED', 'ACKNOWLEDGED', 'IN_PROGRESS', 'EXTENDED', 'OVERDUE']);
  });

  it('lists the request types of docs/design.md §5', () => {
    expect([...privacyRequestTypes].sort()).toEqual(
      [
        'ACCESS',
        'APPEAL',
        'CORRECTION',
        'DELETION',
        'LIMIT_SENSITIVE',
        'OPT_OUT_SALE_SHARING',
        'PORTABILITY',
      ].sort(),
    );
  });
});
