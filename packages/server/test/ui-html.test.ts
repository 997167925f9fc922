// The inspector's HTML: every value escaped, hidden characters shown.
import { describe, expect, it } from 'vitest';
import { escapeHtml, type Html, html, shown } from '../src/index.js';

describe('escapeHtml', () => {
  it('escapes the five characters that mean something in text and quoted attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;',
    );
    expect(escapeHtml('plain text, no change')).toBe('plain text, no change');
  });
});

describe('html', () => {
  it('escapes every value put into the template, but not the template', () => {
    const value = '<script>alert(1)</script>';
    expect(html`<p title="${value}">${value}</p>`.toString()).toBe(
      '<p title="&lt;script&gt;alert(1)&lt;/script&gt;">&lt;script&gt;alert(1)&lt;/script&gt;</p>',
    );
  });

  it('keeps HTML it made, escapes lists item by item, and drops nothing values', () => {
    const items: Array<Html | string | number | null | undefined | false> = [
      '<b>',
      html`<i>${'&'}</i>`,
      3,
      null,
      undefined,
      false,
    ];
    expect(html`<li>${items}</li>`.toString()).toBe('<li>&lt;b&gt;<i>&amp;</i>3</li>');
  });

  it('escapes a string that looks like HTML it made', () => {
    const forged = { toString: () => '<img src=x onerror=alert(1)>' };
    expect(html`${String(forged)}`.toString()).toBe('&lt;img src=x onerror=alert(1)&gt;');
  });
});

describe('shown', () => {
  it('shows direction controls and invisible characters as marks, and escapes the rest', () => {
    expect(shown('a\u202Etxt.exe<').toString()).toBe('a<span class="hidden-char">U+202E</span>txt.exe&lt;');
    expect(shown('\u200B\u2066x\u0000\tok\n').toString()).toBe(
      '<span class="hidden-char">U+200B</span><span class="hidden-char">U+2066</span>x<span class="hidden-char">U+0000</span>\tok\n',
    );
  });
});
