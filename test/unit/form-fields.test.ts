/**
 * Field-definition rules and answer validation (domain/servicing/form-fields.ts; docs/processes.md P4): every
 * field type's accepted and refused values, definition rules, changes and missing answers.
 */
import { describe, expect, it } from 'vitest';
import {
  answerChanges,
  checkAnswer,
  checkAnswers,
  definitionErrors,
  type FieldDefinition,
  type FieldDefinitions,
  missingAnswers,
} from '../../domain/servicing/form-fields';

const field = (type: FieldDefinition['type'], extra: Partial<FieldDefinition> = {}): FieldDefinition => ({
  key: 'f',
  label: 'F',
  type,
  requiredAt: 'OPTIONAL',
  ...extra,
});

const accepted = (f: FieldDefinition, value: unknown) => {
  const result = checkAnswer(f, value);
  return result.ok ? result.value : `refused: ${result.message}`;
};

describe('checkAnswer by field type', () => {
  it('TEXT: trimmed, non-empty, at most 2000 characters, without identifiers', () => {
    expect(accepted(field('TEXT'), '  hello ')).toBe('hello');
    for (const bad of ['', '   ', 'x'.repeat(2001), 5, true, 'card 4111 1111 1111 1111']) {
      expect(accepted(field('TEXT'), bad)).toMatch(/^refused/);
    }
  });

  it('NUMBER: decimal strings and exactly held JSON numbers, stored as decimal text', () => {
    expect(accepted(field('NUMBER'), 12)).toBe('12');
    expect(accepted(field('NUMBER'), -0.5)).toBe('-0.5');
    expect(accepted(field('NUMBER'), '007')).toMatch(/^refused/);
    for (const bad of ['1e3', 1e21, 1e-7, Number.NaN, '1.1234567', '', ' 1', true, null]) {
      expect(accepted(field('NUMBER'), bad), String(bad)).toMatch(/^refused/);
    }
  });

  it('MONEY: decimal string with at most the currency digits, stored with exactly them; never a JSON number', () => {
    expect(accepted(field('MONEY'), '12.5')).toBe('12.50');
    expect(accepted(field('MONEY', { currency: 'JPY' }), '1200')).toBe('1200');
    expect(accepted(field('MONEY', { currency: 'KWD' }), '1.005')).toBe('1.005');
    expect(accepted(field('MONEY', { currency: 'JPY' }), '1200.5')).toMatch(/^refused.*0 fraction digits/);
    expect(accepted(field('MONEY'), '1.005')).toMatch(/^refused/);
    expect(accepted(field('MONEY'), 12.5)).toMatch(/^refused/);
  });

  it('DATE: real ISO calendar dates from 1900 to 2199', () => {
    expect(accepted(field('DATE'), '2024-02-29')).toBe('2024-02-29');
    for (const bad of ['2023-02-29', '2024-2-1', '1899-12-31', '2200-01-01', 20240101]) {
      expect(accepted(field('DATE'), bad), String(bad)).toMatch(/^refused/);
    }
  });

  it('BOOLEAN and ENUM', () => {
    expect(accepted(field('BOOLEAN'), false)).toBe(false);
    expect(accepted(field('BOOLEAN'), 'true')).toMatch(/^refused/);
    const choice = field('ENUM', { options: ['A', 'B'] });
    expect(accepted(choice, 'B')).toBe('B');
    expect(accepted(choice, 'b')).toMatch(/^refused.*A, B/);
  });
});

const definitions: FieldDefinitions = {
  sections: [
    {
      key: 's',
      label: 'S',
      fields: [
        { key: 'a', label: 'A', type: 'TEXT', requiredAt: 'ON_CREATE' },
        { key: 'b', label: 'B', type: 'BOOLEAN', requiredAt: 'ON_CLOSE' },
        { key: 'c', label: 'C', type: 'NUMBER', requiredAt: 'OPTIONAL' },
      ],
    },
  ],
};

describe('checkAnswers', () => {
  it('create: drops nulls, requires ON_CREATE, names unknown keys', () => {
    expect(checkAnswers(definitions, { a: 'x', c: null }, 'create')).toEqual({
      ok: true,
      answers: { a: 'x' },
    });
    const refused = checkAnswers(definitions, { zz: 1, c: 'n' }, 'create');
    expect(refused.ok ? [] : refused.errors.map((e) => e.parameterName)).toEqual([
      'answers.zz',
      'answers.c',
      'answers.a',
    ]);
  });

  it('update: keeps nulls as clears, refuses clearing ON_CREATE', () => {
    expect(checkAnswers(definitions, { b: null }, 'update')).toEqual({ ok: true, answers: { b: null } });
    const refused = checkAnswers(definitions, { a: null }, 'update');
    expect(refused.ok ? [] : refused.errors.map((e) => e.parameterName)).toEqual(['answers.a']);
  });
});

describe('answerChanges and missingAnswers', () => {
  it('reports SET and CLEAR with before and after, skipping values that do not change', () => {
    const { changes, answers } = answerChanges({ a: 'x', b: true }, { a: 'y', b: null, c: null, d: 'same' });
    expect(changes).toEqual([
      { fieldKey: 'a', operation: 'SET', before: 'x', after: 'y' },
      { fieldKey: 'b', operation: 'CLEAR', before: true, after: null },
      { fieldKey: 'd', operation: 'SET', before: null, after: 'same' },
    ]);
    expect(answers).toEqual({ a: 'y', d: 'same' });
    expect(answerChanges(answers, { a: 'y' }).changes).toEqual([]);
  });

  it('lists the keys a stage still lacks', () => {
    expect(missingAnswers(definitions, { a: 'x' }, 'ON_CLOSE')).toEqual(['b']);
    expect(missingAnswers(definitions, { a: 'x', b: false }, 'ON_CLOSE')).toEqual([]);
  });
});

describe('definitionErrors', () => {
  it('accepts a valid definition and names each broken rule', () => {
    expect(definitionErrors(definitions)).toEqual([]);
    const broken: FieldDefinitions = {
      sections: [
        { key: 's', label: 'S', fields: [field('ENUM', { key: 'x' })] },
        { key: 's', label: 'S', fields: [field('TEXT', { key: 'x', currency: 'USD' })] },
      ],
    };
    expect(definitionErrors(broken).map((e) => e.parameterName)).toEqual([
      'fieldDefinitions.sections[1].key',
      'fieldDefinitions.sections[0].fields[0].options',
      'fieldDefinitions.sections[1].fields[0].key',
      'fieldDefinitions.sections[1].fields[0].currency',
    ]);
  });
});
