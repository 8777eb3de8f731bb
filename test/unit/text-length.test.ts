/**
 * Text lengths counted in Unicode code points, as JSON Schema counts `minLength`/`maxLength` (JSON Schema
 * Validation 2020-12 §6.3.1–6.3.2), so the checks refuse exactly what the OpenAPI document refuses. Found by
 * `npm run fuzz`: `GET /v1/portfolio/search?q=%F3%9C%80%A3` (one character, U+1C023, two UTF-16 units) was
 * answered 200 although `q` is documented as at least 2 characters.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { searchQuery } from '../../domain/customers/schemas/customers';
import { text } from '../../domain/validation/fields';
import { codePointLength, maxChars, minChars } from '../../domain/validation/text-length';

const astral = '\u{1C023}';
const emoji = '\u{1F600}';

describe('codePointLength', () => {
  it('counts a surrogate pair once and everything else per UTF-16 unit', () => {
    expect(codePointLength('')).toBe(0);
    expect(codePointLength('abc')).toBe(3);
    expect(codePointLength('Ñúñez')).toBe(5);
    expect(astral.length).toBe(2);
    expect(codePointLength(astral)).toBe(1);
    expect(codePointLength(`a${emoji}b${astral}`)).toBe(4);
    expect(codePointLength(emoji.repeat(100))).toBe(100);
  });

  it('counts a lone surrogate as one, wherever it stands', () => {
    expect(codePointLength('\ud83d')).toBe(1);
    expect(codePointLength('a\ude00')).toBe(2);
    expect(codePointLength('\ude00\ud83d')).toBe(2);
    expect(codePointLength(`\ud83d${emoji}`)).toBe(2);
  });

  it('agrees with the string iterator on random text', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let round = 0; round < 2000; round++) {
      let s = '';
      const length = next() % 12;
      for (let i = 0; i < length; i++) {
        const pick = next() % 4;
        if (pick === 0) s += String.fromCharCode(0x20 + (next() % 95));
        else if (pick === 1) s += String.fromCodePoint(0x10000 + (next() % 0xfffff));
        else if (pick === 2) s += String.fromCharCode(0xd800 + (next() % 0x800));
        else s += String.fromCharCode(0xe000 + (next() % 0x1000));
      }
      expect(codePointLength(s), JSON.stringify(s)).toBe([...s].length);
    }
  });
});

describe('minChars and maxChars', () => {
  const schema = v.pipe(v.string(), ...minChars(2, 'too short'), ...maxChars(3, 'too long'));

  it('refuse by code points, not by UTF-16 units', () => {
    expect(v.safeParse(schema, astral).issues?.map((issue) => issue.message)).toEqual(['too short']);
    expect(v.safeParse(schema, 'a').issues?.map((issue) => issue.message)).toEqual(['too short']);
    expect(v.safeParse(schema, `${astral}${astral}`).success).toBe(true);
    expect(v.safeParse(schema, emoji.repeat(3)).success).toBe(true);
    expect(v.safeParse(schema, emoji.repeat(4)).issues?.map((issue) => issue.message)).toEqual(['too long']);
    expect(v.safeParse(schema, 'abcd').issues?.map((issue) => issue.message)).toEqual(['too long']);
  });

  it('state the same limits in the JSON Schema of the OpenAPI document', () => {
    expect(toJsonSchema(schema, { target: 'draft-2020-12', ignoreActions: ['check'] })).toMatchObject({
      type: 'string',
      minLength: 2,
      maxLength: 3,
    });
  });
});

describe('fields that use them', () => {
  it('search q: one astral character is 1 character, refused; 200 of them are accepted', () => {
    const one = v.safeParse(searchQuery, { q: astral });
    expect(one.issues?.map((issue) => issue.message)).toEqual(['q must be at least 2 characters.']);
    expect(v.safeParse(searchQuery, { q: emoji.repeat(200) }).success).toBe(true);
    expect(v.safeParse(searchQuery, { q: emoji.repeat(201) }).issues?.map((issue) => issue.message)).toEqual([
      'q must be at most 200 characters.',
    ]);
  });

  it('text(max) counts after trimming, in code points', () => {
    expect(v.safeParse(text(2), `  ${emoji}${emoji}  `).output).toBe(`${emoji}${emoji}`);
    expect(v.safeParse(text(2), '   ').issues?.map((issue) => issue.message)).toEqual(['must not be empty.']);
    expect(v.safeParse(text(2), 'abc').issues?.map((issue) => issue.message)).toEqual([
      'must be at most 2 characters.',
    ]);
  });
});
