/**
 * Length limits on text, counted in Unicode code points, the way JSON Schema counts them (JSON Schema Validation
 * 2020-12 §6.3.1 `maxLength`, §6.3.2 `minLength`: "the length of a string instance is defined as the number of its
 * characters as defined by RFC 8259", i.e. code points). Valibot's `minLength`/`maxLength` count UTF-16 code
 * units, in which a character outside the Basic Multilingual Plane (an emoji, `U+1C023`) is 2: `q` of one such
 * character would pass a 2-unit `minLength` while the OpenAPI document, which says 2 characters, refuses it.
 *
 * `minChars(n, message)` and `maxChars(n, message)` each return a check and the `minLength`/`maxLength` the OpenAPI
 * document states, to be spread into a `v.pipe` of a string: `v.pipe(v.string(), v.trim(), ...minChars(1, 'must
 * not be empty.'))`.
 */
import * as v from 'valibot';

/**
 * The number of Unicode code points in `text`: its UTF-16 length less one per surrogate pair. A lone surrogate
 * counts as one (as it does in JSON Schema validators that read it).
 */
export function codePointLength(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        i++;
      }
    }
  }
  return length;
}

/**
 * At least `min` code points (module note); `message` is the message. The UTF-16 length bounds the count
 * from above, so a string shorter than `min` units is refused without counting.
 */
export const minChars = (min: number, message: string) =>
  [
    v.check<string, string>((input) => input.length >= min && codePointLength(input) >= min, message),
    v.metadata<string, { minLength: number }>({ minLength: min }),
  ] as const;

/**
 * At most `max` code points (module note); `message` is the message. A string of at most `max` UTF-16
 * units passes without counting.
 */
export const maxChars = (max: number, message: string) =>
  [
    v.check<string, string>((input) => input.length <= max || codePointLength(input) <= max, message),
    v.metadata<string, { maxLength: number }>({ maxLength: max }),
  ] as const;
