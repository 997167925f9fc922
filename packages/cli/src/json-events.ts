// A JSON reader that takes its text in pieces and reports what it finds as it goes (a value, the
// start or end of an object or array, a key), so that a large document (an archive's manifest) is
// checked in bounded memory: nothing but the current string, number or literal is ever held.
// It accepts exactly what JSON.parse accepts.
//
// Kept over a library (issue 35), after trying @streamparser/json 0.0.26, the streaming JSON parser
// of that table, against JSON.parse on the same texts: it accepts a text that starts with a byte
// order mark, which JSON.parse (and so every other reader of the manifest) refuses; it holds every
// string whole with no limit, where this reader refuses one longer than `maxString` (64 Ki
// characters for the manifest) as soon as it gets there; and it is at 0.0.x. stream-json would serve,
// but as a Node stream pipeline of several packages for what is 200 lines here, tested against
// JSON.parse (test/json-events.test.ts).

/** What the reader found, in document order. */
export type JsonEvent =
  | { readonly type: 'begin'; readonly container: 'object' | 'array' }
  | { readonly type: 'end' }
  | { readonly type: 'key'; readonly key: string }
  | { readonly type: 'value'; readonly value: string | number | boolean | null };

/** Thrown for text that is not JSON, or a string longer than the reader holds. */
export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
}

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** What may come next, outside a string or a bare word. */
type Expect = 'value' | 'key-or-end' | 'key' | 'colon' | 'comma-or-end' | 'value-or-end' | 'done';

export class JsonEvents {
  readonly #emit: (event: JsonEvent) => void;
  readonly #maxString: number;
  /** The open containers, innermost last. */
  readonly #stack: Array<'object' | 'array'> = [];
  #expect: Expect = 'value';
  /** The string being read (undefined outside one), whether it is a key, and escape state. */
  #string: string | undefined;
  #stringIsKey = false;
  #escape: string | undefined;
  /** The number or literal being read. */
  #word = '';

  /**
   * @param emit called with each event, in order.
   * @param maxString the longest string (in UTF-16 code units) the reader holds.
   */
  constructor(emit: (event: JsonEvent) => void, maxString: number) {
    this.#emit = emit;
    this.#maxString = maxString;
  }

  /** Reads the next piece of the text. @throws JsonSyntaxError */
  feed(text: string): void {
    for (let index = 0; index < text.length; index++) {
      const character = text[index]!;
      if (this.#string !== undefined) {
        this.#inString(character);
        continue;
      }
      if (this.#word !== '' && /[0-9a-zA-Z.+-]/.test(character)) {
        this.#word += character;
        if (this.#word.length > 400) throw new JsonSyntaxError('a number or word is too long');
        continue;
      }
      if (this.#word !== '') this.#endWord();
      this.#structural(character);
    }
  }

  /** Ends the text: it must have held exactly one complete value. @throws JsonSyntaxError */
  end(): void {
    if (this.#string !== undefined) throw new JsonSyntaxError('the text ends inside a string');
    if (this.#word !== '') this.#endWord();
    if (this.#expect !== 'done') throw new JsonSyntaxError('the text ends before its value does');
  }

  #structural(character: string): void {
    if (character === ' ' || character === '\t' || character === '\n' || character === '\r') return;
    const expect = this.#expect;
    if (character === '"') {
      if (expect === 'key' || expect === 'key-or-end') this.#stringIsKey = true;
      else if (expect === 'value' || expect === 'value-or-end') this.#stringIsKey = false;
      else throw this.#unexpected(character);
      this.#string = '';
      return;
    }
    if (character === '}' || character === ']') {
      const container = character === '}' ? 'object' : 'array';
      const open = this.#stack.at(-1);
      const closable =
        expect === 'comma-or-end' ||
        (container === 'object' ? expect === 'key-or-end' : expect === 'value-or-end');
      if (open !== container || !closable) throw this.#unexpected(character);
      this.#stack.pop();
      this.#emit({ type: 'end' });
      this.#afterValue();
      return;
    }
    if (character === ':') {
      if (expect !== 'colon') throw this.#unexpected(character);
      this.#expect = 'value';
      return;
    }
    if (character === ',') {
      if (expect !== 'comma-or-end') throw this.#unexpected(character);
      this.#expect = this.#stack.at(-1) === 'object' ? 'key' : 'value';
      return;
    }
    if (expect !== 'value' && expect !== 'value-or-end') throw this.#unexpected(character);
    if (character === '{' || character === '[') {
      const container = character === '{' ? 'object' : 'array';
      this.#stack.push(container);
      this.#emit({ type: 'begin', container });
      this.#expect = container === 'object' ? 'key-or-end' : 'value-or-end';
      return;
    }
    if (/[-0-9a-z]/.test(character)) {
      this.#word = character;
      return;
    }
    throw this.#unexpected(character);
  }

  #inString(character: string): void {
    if (this.#escape !== undefined) {
      this.#escape += character;
      if (this.#escape.length === 1 && this.#escape !== 'u') {
        const replacement = ESCAPES[this.#escape];
        if (replacement === undefined) throw new JsonSyntaxError('a string holds an unknown escape');
        this.#append(replacement);
        this.#escape = undefined;
      } else if (this.#escape.length === 5) {
        if (!/^u[0-9a-fA-F]{4}$/.test(this.#escape))
          throw new JsonSyntaxError('a string holds a bad \\u escape');
        this.#append(String.fromCharCode(Number.parseInt(this.#escape.slice(1), 16)));
        this.#escape = undefined;
      }
      return;
    }
    if (character === '\\') {
      this.#escape = '';
      return;
    }
    if (character === '"') {
      const value = this.#string!;
      this.#string = undefined;
      if (this.#stringIsKey) {
        this.#emit({ type: 'key', key: value });
        this.#expect = 'colon';
      } else {
        this.#emit({ type: 'value', value });
        this.#afterValue();
      }
      return;
    }
    if (character < ' ') throw new JsonSyntaxError('a string holds a control character');
    this.#append(character);
  }

  #append(text: string): void {
    this.#string += text;
    if (this.#string!.length > this.#maxString) {
      throw new JsonSyntaxError(`a string is longer than ${this.#maxString} characters`);
    }
  }

  #endWord(): void {
    const word = this.#word;
    this.#word = '';
    let value: number | boolean | null;
    if (word === 'true') value = true;
    else if (word === 'false') value = false;
    else if (word === 'null') value = null;
    else if (NUMBER.test(word)) value = Number(word);
    else throw new JsonSyntaxError(`unexpected ${JSON.stringify(word.slice(0, 20))}`);
    this.#emit({ type: 'value', value });
    this.#afterValue();
  }

  #afterValue(): void {
    this.#expect = this.#stack.length === 0 ? 'done' : 'comma-or-end';
  }

  #unexpected(character: string): JsonSyntaxError {
    return new JsonSyntaxError(`unexpected ${JSON.stringify(character)}`);
  }
}
