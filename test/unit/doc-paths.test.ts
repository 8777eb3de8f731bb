/**
 * Every repository path the documents name exists: the paths in docs/*.md, in the READMEs of the repository and
 * its folders (README.md, activities/README.md, workflows/README.md, db/README.md, client/README.md, …), and in
 * the comments of every *.ts file. A path is text starting with a top-level folder of the repository (`api/`,
 * `activities/`, … `.ci/`) and ending in a file name with an extension or in `/`; in a folder's README a
 * backticked path may also be relative to that folder (`payments/sandbox-rail.ts` in activities/README.md), and a
 * relative Markdown link is resolved from the document's folder. Paths with a placeholder (`<context>`,
 * `{loanId}`, `*`, `…`, `${…}`) name a family of files, not one, and are not checked. Reads files only.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../workers/config';

const topFolders = [
  'api',
  'workflows',
  'activities',
  'db',
  'workers',
  'test',
  'domain',
  'docs',
  'scripts',
  'bench',
  'client',
  'patches',
  '.ci',
];
/** Folders never walked: installed, generated or git-ignored. */
const skippedFolders = new Set(['node_modules', '.git', '.data', '.tools', 'dist', 'coverage', 'target']);

/** A path of the repository: a top-level folder, then path characters, ending in `name.ext` or `/`. */
const repoPath = new RegExp(
  String.raw`(?<![\w./@-])(?:${topFolders.map((f) => f.replace('.', '\\.')).join('|')})/[\w.\-/<>{}*…$]*`,
  'g',
);
/** A placeholder: the path names a family of files (`workflows/<context>/<process>/client.ts`). */
const placeholder = /[<>{}*…$]|\.\.\./;

/** The path as written, less the sentence's punctuation; null when it names no file or folder. */
function cleanPath(raw: string): string | null {
  const trimmed = raw.replace(/[.,:;]+$/, '');
  if (placeholder.test(trimmed)) return null;
  const last = trimmed.split('/').pop() ?? '';
  if (trimmed.endsWith('/') || /\.[A-Za-z0-9]{1,8}$/.test(last)) return trimmed;
  return null;
}

function walk(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(path.join(projectRoot, dir), { withFileTypes: true })) {
    if (skippedFolders.has(entry.name)) continue;
    // test/unit/layer-rules.test.ts plants `zz-probe-*` files for a moment while tests run in parallel
    if (entry.name.startsWith('zz-probe-')) continue;
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) walk(rel, out);
    else out.push(rel);
  }
  return out;
}

/**
 * The text of every comment of a TypeScript file, not `//` or `/*` inside a string, template or regular
 * expression literal. A character scan (a full parse of every file takes seconds): a `/` starts a regular
 * expression where an operand is expected, that is after an operator, an opening bracket, a separator or a keyword
 * such as `return`.
 */
function commentsOf(text: string): string[] {
  const comments: string[] = [];
  /** Brace depth of each open template's `${`: a `}` at depth 0 resumes the template's text. */
  const templates: number[] = [];
  let last = '';
  let i = 0;
  const n = text.length;
  const skipQuoted = (quote: string) => {
    for (i++; i < n && text[i] !== quote && text[i] !== '\n'; i++) if (text[i] === '\\') i++;
    i++;
  };
  /** Template text from `i` to its end or to a `${`. */
  const skipTemplateText = () => {
    for (; i < n; i++) {
      if (text[i] === '\\') i++;
      else if (text[i] === '`') {
        i++;
        return;
      } else if (text[i] === '$' && text[i + 1] === '{') {
        templates.push(0);
        i += 2;
        return;
      }
    }
  };
  while (i < n) {
    const c = text[i] as string;
    if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      comments.push(text.slice(i, end < 0 ? n : end));
      i = end < 0 ? n : end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      comments.push(text.slice(i, end < 0 ? n : end + 2));
      i = end < 0 ? n : end + 2;
    } else if (c === "'" || c === '"') {
      skipQuoted(c);
      last = 'a';
    } else if (c === '`') {
      i++;
      skipTemplateText();
      last = 'a';
    } else if (
      c === '/' &&
      (last === '' ||
        /[(,=:[!&|?{};+\-*%<>~^]/.test(last) ||
        /\b(?:return|typeof|case|of|in|yield|await|void|delete)$/.test(
          text.slice(Math.max(0, i - 8), i).trimEnd(),
        ))
    ) {
      let inClass = false;
      for (i++; i < n && text[i] !== '\n'; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '[') inClass = true;
        else if (text[i] === ']') inClass = false;
        else if (text[i] === '/' && !inClass) break;
      }
      i++;
      last = 'a';
    } else {
      const top = templates.length - 1;
      if (top >= 0) {
        const depth = templates[top] as number;
        if (c === '{') templates[top] = depth + 1;
        else if (c === '}') {
          if (depth === 0) {
            templates.pop();
            i++;
            skipTemplateText();
            last = 'a';
            continue;
          }
          templates[top] = depth - 1;
        }
      }
      if (!/\s/.test(c)) last = /[\w$)\]]/.test(c) ? 'a' : c;
      i++;
    }
  }
  return comments;
}

const exists = (p: string) => existsSync(path.join(projectRoot, p));

interface Reference {
  file: string;
  path: string;
  /** Where else the path may be read from (a folder README's own folder, a Markdown link's folder). */
  alternatives: string[];
}

/** The repository paths one text names, each with the places it may resolve to. */
function referencesIn(file: string, text: string): Reference[] {
  const refs: Reference[] = [];
  for (const m of text.matchAll(repoPath)) {
    // A URL or a package path (`https://github.com/…/api/…`, `@scope/x/…`) is not ours.
    const before = text.slice(Math.max(0, (m.index ?? 0) - 1), m.index);
    if (before === '/' || before === ':') continue;
    const p = cleanPath(m[0]);
    if (p) refs.push({ file, path: p, alternatives: [] });
  }
  if (file.endsWith('.md')) {
    const dir = path.posix.dirname(file);
    for (const m of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
      const target = m[1] as string;
      if (/^[a-z]+:/i.test(target) || target.startsWith('/')) continue;
      refs.push({ file, path: path.posix.normalize(path.posix.join(dir, target)), alternatives: [] });
    }
    // A folder README names its own files relative to itself.
    if (dir !== '.' && path.posix.basename(file) === 'README.md') {
      for (const m of text.matchAll(/`([\w.\-/]+\/[\w.-]+\.[A-Za-z0-9]{1,8})`/g)) {
        const rel = m[1] as string;
        if (topFolders.some((f) => rel.startsWith(`${f}/`))) continue;
        // Only a path into one of the folder's own subfolders (not an upstream project's path it quotes).
        if (!exists(`${dir}/${rel.split('/')[0]}`)) continue;
        refs.push({ file, path: `${dir}/${rel}`, alternatives: [rel] });
      }
    }
  }
  return refs;
}

function documentsAndSources(): { file: string; text: string }[] {
  const files = walk('', []);
  const docs = files.filter(
    (f) => (f.startsWith('docs/') && f.endsWith('.md')) || path.posix.basename(f) === 'README.md',
  );
  const sources = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
  return [
    ...docs.map((file) => ({ file, text: readFileSync(path.join(projectRoot, file), 'utf8') })),
    ...sources.map((file) => ({
      file,
      text: commentsOf(readFileSync(path.join(projectRoot, file), 'utf8')).join('\n'),
    })),
  ];
}

describe('paths named in the documents and comments', () => {
  it('finds paths in comments and Markdown, and skips placeholders and URLs', () => {
    const comments = commentsOf(
      "// see api/errors.ts.\nconst url = 'http://x/db/README.md'; /* workflows/<context>/client.ts, db/tenant-tx.ts: */\n" +
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template with a placeholder
        'const re = /\\/\\/ api\\/a.ts/; const t = `// api/b.ts ${`${x}`} // api/c.ts`; // api/app.ts\n',
    );
    const found = comments.flatMap((c) => referencesIn('x.ts', c)).map((r) => r.path);
    expect(found).toEqual(['api/errors.ts', 'db/tenant-tx.ts', 'api/app.ts']);
    const md = referencesIn(
      'docs/a.md',
      'In [x](integrating.md#webhooks), [y](../README.md), [z](https://github.com/o/r/blob/main/api/x.ts) and `test/workflows/`.',
    ).map((r) => r.path);
    expect(md).toEqual(['test/workflows/', 'docs/integrating.md', 'README.md']);
    expect(referencesIn('db/README.md', '`schema/columns.ts`, `upstream/src/x.ts`')).toEqual([
      { file: 'db/README.md', path: 'db/schema/columns.ts', alternatives: ['schema/columns.ts'] },
    ]);
  });

  it('every one exists', () => {
    const missing = documentsAndSources()
      .flatMap(({ file, text }) => referencesIn(file, text))
      .filter((r) => !exists(r.path) && !r.alternatives.some(exists))
      .map((r) => `${r.file}: ${r.path}`);
    expect([...new Set(missing)]).toEqual([]);
  });
});
