// HTML that cannot carry what it shows: every value put into a page goes through `html`, which
// escapes it (`& < > " '`) unless it is already `Html` made the same way. Store-derived text also
// goes through `shown`, which makes Unicode direction controls and other invisible characters
// visible, so a path cannot pretend to be another.

/** A piece of HTML built by `html` (never from a plain string). */
export class Html {
  readonly #text: string;
  /** @internal Only `html` makes these. */
  constructor(text: string) {
    this.#text = text;
  }
  toString(): string {
    return this.#text;
  }
}

/** What `html` accepts between its pieces: text (escaped), numbers, `Html`, lists of them, nothing. */
export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** `text` with the five characters that mean something in HTML (text or quoted attribute) escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

function piece(value: HtmlValue): string {
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** A template tag: the template's own text is HTML, every value put into it is escaped. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): Html {
  let text = strings[0]!;
  for (let index = 0; index < values.length; index++) {
    text += piece(values[index]!) + strings[index + 1]!;
  }
  return new Html(text);
}

/**
 * Unicode direction controls (which reorder what follows them), zero-width and other invisible
 * format characters, and C0/C1 controls but tab and newline.
 */
const HIDDEN =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu;

/**
 * Text from the store as HTML that shows every hidden character as a visible mark (`U+202E`), so
 * text after a direction override reads in its own order.
 */
export function shown(text: string): Html {
  let result = '';
  let last = 0;
  for (const match of text.matchAll(HIDDEN)) {
    const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    result += `${escapeHtml(text.slice(last, match.index))}<span class="hidden-char">U+${code}</span>`;
    last = match.index + match[0].length;
  }
  return new Html(result + escapeHtml(text.slice(last)));
}
