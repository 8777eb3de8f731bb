/**
 * Case-type field definitions and the answers of form entries (docs/servicing.md "Case types, field definitions and form entries"; docs/processes.md P4 "Case types and field definitions",
 * "Form entries"). Pure rules shared by the operations and the API:
 * - `definitionErrors`: the rules a published definition must meet beyond its shape (unique section keys,
 *   field keys unique across the whole definition, ENUM options, MONEY currency);
 * - `checkAnswers`: validates and normalizes answers against a definition, by field type;
 * - `answerChanges`: the `SET`/`CLEAR` changes a patch makes, with `before` and `after`;
 * - `missingAnswers`: the keys a `requiredAt` stage still lacks (ON_CLOSE is checked when a case closes).
 *
 * Answer representation (never a float, docs/design.md §3): TEXT a trimmed string (1–2000 characters, no government
 * identifier or account number); NUMBER a decimal string (a JSON number is accepted when a double holds
 * it exactly and is stored as its decimal text), at most 15 integer and 6 fraction digits; MONEY a decimal string
 * with at most the minor-unit digits of the field's `currency` (ISO 4217, dinero.js table; 2 when the field names
 * none), stored with exactly that many (`"12.5"` → `"12.50"`); DATE an ISO 8601 calendar date in 1900-01-01..
 * 2199-12-31 (the input range of domain/validation/dates.ts); BOOLEAN `true`/`false`; ENUM one of the field's `options`.
 */
import { isIsoDate } from '../calendar';
import { type FieldError, fieldError } from '../errors';
import { formatMinor, minorUnitDigits, parseDecimalToMinor } from '../money';
import { findSensitiveData, sensitiveDataMessage } from '../sensitive-data';

/** The field types a definition may use (docs/processes.md P4); the module note gives each answer's form. */
export const fieldTypes = ['TEXT', 'NUMBER', 'MONEY', 'DATE', 'BOOLEAN', 'ENUM'] as const;
export type FieldType = (typeof fieldTypes)[number];

/** When a field must be answered: never required, when the entry is created, or before its case closes. */
export const requiredAtStages = ['OPTIONAL', 'ON_CREATE', 'ON_CLOSE'] as const;
export type RequiredAt = (typeof requiredAtStages)[number];

/** One field of a section. `options` only for ENUM (required there); `currency` only for MONEY (optional). */
export interface FieldDefinition {
  /** Unique across the whole definition; the key of the field's answer. */
  key: string;
  label: string;
  type: FieldType;
  requiredAt: RequiredAt;
  options?: string[];
  /** ISO 4217 code fixing the MONEY answer's fraction digits. */
  currency?: string;
}

export interface SectionDefinition {
  key: string;
  label: string;
  fields: FieldDefinition[];
}

/** The spec's `fieldDefinitions`: `{sections: [{key, label, fields: [{key, label, type, requiredAt}]}]}`. */
export interface FieldDefinitions {
  sections: SectionDefinition[];
}

/** A stored answer: TEXT, NUMBER, MONEY, DATE and ENUM as strings, BOOLEAN as a boolean. */
export type AnswerValue = string | boolean;
export type Answers = Record<string, AnswerValue>;

/** Syntax of section and field keys: a letter, then letters, digits or `_`, at most 64 characters. */
export const definitionKeyPattern = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
/** Bounds of a definition (the API schema enforces the per-section ones; the total is checked here). */
export const definitionLimits = {
  sections: 50,
  fieldsPerSection: 100,
  fieldsTotal: 200,
  options: 100,
  labelLength: 200,
  optionLength: 100,
  textAnswerLength: 2000,
} as const;

const earliestDate = '1900-01-01';
const latestDate = '2199-12-31';
const decimalPattern = /^-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,6})?$/;

/** The fields of a definition in order, each with its dotted path (`sections[0].fields[1]`). */
function fieldsWithPaths(definitions: FieldDefinitions): { field: FieldDefinition; path: string }[] {
  return definitions.sections.flatMap((section, s) =>
    section.fields.map((field, f) => ({ field, path: `fieldDefinitions.sections[${s}].fields[${f}]` })),
  );
}

/**
 * The rules a definition must meet beyond its shape, as field errors (empty: valid): section keys unique; field
 * keys unique across every section; at most `definitionLimits.fieldsTotal` fields; ENUM fields carry 1–100
 * distinct `options` and other types none; `currency` only on MONEY and a known ISO 4217 code.
 */
export function definitionErrors(definitions: FieldDefinitions): FieldError[] {
  const errors: FieldError[] = [];
  const sectionKeys = new Set<string>();
  definitions.sections.forEach((section, s) => {
    if (sectionKeys.has(section.key)) {
      errors.push(
        fieldError(
          `fieldDefinitions.sections[${s}].key`,
          section.key,
          `fieldDefinitions.sections[${s}].key: section key ${section.key} is used twice.`,
        ),
      );
    }
    sectionKeys.add(section.key);
  });
  const fields = fieldsWithPaths(definitions);
  if (fields.length > definitionLimits.fieldsTotal) {
    errors.push(
      fieldError(
        'fieldDefinitions.sections',
        null,
        `fieldDefinitions.sections: at most ${definitionLimits.fieldsTotal} fields in all; found ${fields.length}.`,
      ),
    );
  }
  const fieldKeys = new Set<string>();
  for (const { field, path } of fields) {
    if (fieldKeys.has(field.key)) {
      errors.push(
        fieldError(
          `${path}.key`,
          field.key,
          `${path}.key: field key ${field.key} is used twice; field keys are unique across all sections.`,
        ),
      );
    }
    fieldKeys.add(field.key);
    if (field.type === 'ENUM') {
      if (!field.options || field.options.length === 0) {
        errors.push(fieldError(`${path}.options`, null, `${path}.options: an ENUM field needs options.`));
      } else if (new Set(field.options).size !== field.options.length) {
        errors.push(
          fieldError(`${path}.options`, field.options, `${path}.options: each option may appear once.`),
        );
      }
    } else if (field.options !== undefined) {
      errors.push(
        fieldError(`${path}.options`, field.options, `${path}.options: only ENUM fields have options.`),
      );
    }
    if (field.currency !== undefined) {
      if (field.type !== 'MONEY') {
        errors.push(
          fieldError(
            `${path}.currency`,
            field.currency,
            `${path}.currency: only MONEY fields have a currency.`,
          ),
        );
      } else if (!isKnownCurrency(field.currency)) {
        errors.push(
          fieldError(
            `${path}.currency`,
            field.currency,
            `${path}.currency: ${field.currency} is not an ISO 4217 currency code.`,
          ),
        );
      }
    }
  }
  return errors;
}

function isKnownCurrency(code: string): boolean {
  try {
    minorUnitDigits(code);
    return true;
  } catch {
    return false;
  }
}

/** The field with key `key`, or undefined. */
export function fieldOf(definitions: FieldDefinitions, key: string): FieldDefinition | undefined {
  for (const section of definitions.sections) {
    const found = section.fields.find((field) => field.key === key);
    if (found) return found;
  }
  return undefined;
}

type Checked = { ok: true; value: AnswerValue } | { ok: false; message: string };

/** Validates one non-null answer of `field` and returns its stored form (module note). */
export function checkAnswer(field: FieldDefinition, value: unknown): Checked {
  switch (field.type) {
    case 'TEXT': {
      if (typeof value !== 'string') return { ok: false, message: 'must be a string (TEXT).' };
      const trimmed = value.trim();
      if (trimmed.length === 0) return { ok: false, message: 'must not be empty; send null to clear it.' };
      if (trimmed.length > definitionLimits.textAnswerLength)
        return { ok: false, message: `must be at most ${definitionLimits.textAnswerLength} characters.` };
      const kind = findSensitiveData(trimmed);
      if (kind !== null) return { ok: false, message: sensitiveDataMessage(kind) };
      return { ok: true, value: trimmed };
    }
    case 'NUMBER': {
      const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
      if (typeof text !== 'string' || !decimalPattern.test(text))
        return {
          ok: false,
          message:
            'must be a decimal number (a string such as "12.5" or a JSON number) with at most 15 integer and 6 fraction digits (NUMBER).',
        };
      return { ok: true, value: text };
    }
    case 'MONEY': {
      const scale = field.currency ? minorUnitDigits(field.currency) : 2;
      const rule = `must be a decimal string with at most ${scale} fraction digits, e.g. "${formatMinor(1250n, scale)}" (MONEY${field.currency ? ` in ${field.currency}` : ''}).`;
      if (typeof value !== 'string' || !decimalPattern.test(value)) return { ok: false, message: rule };
      try {
        return { ok: true, value: formatMinor(parseDecimalToMinor(value, scale), scale) };
      } catch {
        return { ok: false, message: rule };
      }
    }
    case 'DATE': {
      if (typeof value !== 'string' || !isIsoDate(value))
        return { ok: false, message: 'must be an ISO calendar date (YYYY-MM-DD) (DATE).' };
      if (value < earliestDate || value > latestDate)
        return { ok: false, message: `must be from ${earliestDate} to ${latestDate}.` };
      return { ok: true, value };
    }
    case 'BOOLEAN':
      return typeof value === 'boolean'
        ? { ok: true, value }
        : { ok: false, message: 'must be true or false (BOOLEAN).' };
    case 'ENUM':
      return typeof value === 'string' && (field.options ?? []).includes(value)
        ? { ok: true, value }
        : { ok: false, message: `must be one of ${(field.options ?? []).join(', ')} (ENUM).` };
  }
}

/**
 * Validates `answers` (field key → value; `null` means "no answer") against `definitions`:
 * - `create`: null answers are dropped; every ON_CREATE field must be answered;
 * - `update`: null clears; an ON_CREATE field cannot be cleared.
 * Returns the normalized answers (nulls kept for `update`) or the field errors, each named `answers.<fieldKey>`
 * (unknown keys included, `value` withheld for TEXT that carries sensitive data).
 */
export function checkAnswers(
  definitions: FieldDefinitions,
  answers: Record<string, unknown>,
  mode: 'create' | 'update',
): { ok: true; answers: Record<string, AnswerValue | null> } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const normalized: Record<string, AnswerValue | null> = {};
  for (const [key, value] of Object.entries(answers)) {
    // An unknown key is the caller's text: named only when it is not identifier-like (docs/design.md §5 Error details).
    const name = `answers.${findSensitiveData(key) === null ? key : '[withheld]'}`;
    const field = fieldOf(definitions, key);
    if (!field) {
      errors.push(fieldError(name, null, `${name}: unknown field; the publication does not define it.`));
      continue;
    }
    if (value === null) {
      if (mode === 'update' && field.requiredAt === 'ON_CREATE') {
        errors.push(fieldError(name, null, `${name}: ${key} is required (ON_CREATE) and cannot be cleared.`));
      } else if (mode === 'update') {
        normalized[key] = null;
      }
      continue;
    }
    const checked = checkAnswer(field, value);
    if (checked.ok) normalized[key] = checked.value;
    else {
      const sensitive = typeof value === 'string' && findSensitiveData(value) !== null;
      errors.push(fieldError(name, sensitive ? null : value, `${name}: ${checked.message}`));
    }
  }
  if (mode === 'create') {
    for (const { field } of fieldsWithPaths(definitions)) {
      const invalid = errors.some((e) => e.parameterName === `answers.${field.key}`);
      if (field.requiredAt === 'ON_CREATE' && !invalid && !Object.hasOwn(normalized, field.key)) {
        errors.push(
          fieldError(`answers.${field.key}`, null, `answers.${field.key} is required (ON_CREATE).`),
        );
      }
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, answers: normalized };
}

/** One change of a history item (docs/servicing.md "Case types, field definitions and form entries"). */
export interface AnswerChange {
  fieldKey: string;
  operation: 'SET' | 'CLEAR';
  before: AnswerValue | null;
  after: AnswerValue | null;
}

/**
 * The changes `patch` (normalized by `checkAnswers`, null = clear) makes to `current`, in the patch's key
 * order, and the answers after it. A value equal to the current one, or a clear of an unanswered field, is no
 * change.
 */
export function answerChanges(
  current: Answers,
  patch: Record<string, AnswerValue | null>,
): { changes: AnswerChange[]; answers: Answers } {
  const next: Answers = { ...current };
  const changes: AnswerChange[] = [];
  for (const [fieldKey, after] of Object.entries(patch)) {
    const before = Object.hasOwn(current, fieldKey) ? (current[fieldKey] as AnswerValue) : null;
    if (after === null) {
      if (before === null) continue;
      delete next[fieldKey];
      changes.push({ fieldKey, operation: 'CLEAR', before, after: null });
    } else {
      if (before === after) continue;
      next[fieldKey] = after;
      changes.push({ fieldKey, operation: 'SET', before, after });
    }
  }
  return { changes, answers: next };
}

/** Keys of the fields required at `stage` that `answers` does not answer, in definition order. */
export function missingAnswers(definitions: FieldDefinitions, answers: Answers, stage: RequiredAt): string[] {
  return fieldsWithPaths(definitions)
    .filter(({ field }) => field.requiredAt === stage && !Object.hasOwn(answers, field.key))
    .map(({ field }) => field.key);
}

/** `answers` with its keys in the order the definition lists the fields (the order of ANSWERS_CREATED changes). */
export function answersInDefinitionOrder(definitions: FieldDefinitions, answers: Answers): Answers {
  const ordered: Answers = {};
  for (const { field } of fieldsWithPaths(definitions)) {
    if (Object.hasOwn(answers, field.key)) ordered[field.key] = answers[field.key] as AnswerValue;
  }
  return ordered;
}
