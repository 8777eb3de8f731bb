/**
 * The transaction rule of db/README.md and docs/conventions.md §5: `db/tenant-tx.ts` is the only code that opens a
 * transaction (`db.transaction(`, which sets the role and tenant for row-level security), and a savepoint
 * (`tx.transaction(` inside one) is taken only by the three operations db/README.md names. No other file of the
 * service calls `.transaction(` or postgres.js's `.begin(` (which would skip the tenant context). Tests and
 * bench/ set data up as the owner and are outside the rule. Calls are found by the TypeScript parser, so a comment
 * or a string naming `.transaction(` is not one; only files whose text holds the name are parsed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../workers/config';

/** The folders of the service the rule covers. */
const serviceFolders = ['api', 'activities', 'db', 'domain', 'workers', 'workflows', 'scripts', 'client'];

/** Who may call `.transaction(`, and on what: the opener on the database handle, the savepoints on a `tx`. */
const allowed: Record<string, { receiver: string; why: string }> = {
  'db/tenant-tx.ts': { receiver: 'db', why: 'withTenantTransaction, withPlatformTransaction' },
  'activities/boarding/board-lines-together.ts': {
    receiver: 'tx',
    why: 'a savepoint per line of a boarding chunk',
  },
  'activities/payments/collect-autopay-installment.ts': {
    receiver: 'tx',
    why: 'a savepoint around the payment intent of a collection',
  },
  'activities/hardship/confirm-hardship-evidence.ts': {
    receiver: 'tx',
    why: 'a savepoint around a relief the schedule may refuse',
  },
};

/** Each call of `.transaction(` or `.begin(` in a file that the rule does not allow, as `file:line receiver.name(`. */
function violationsIn(file: string, text: string): string[] {
  if (!/\.\s*(?:transaction|begin)\b/.test(text)) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (
        (ts.isPropertyAccessExpression(callee) || ts.isPropertyAccessChain(callee)) &&
        (callee.name.text === 'transaction' || callee.name.text === 'begin')
      ) {
        const receiver = callee.expression.getText(source);
        const rule = allowed[file];
        if (!(callee.name.text === 'transaction' && rule && rule.receiver === receiver)) {
          const { line } = source.getLineAndCharacterOfPosition(callee.name.getStart(source));
          found.push(`${file}:${line + 1} ${receiver}.${callee.name.text}(`);
        }
      }
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

function serviceFiles(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(path.join(projectRoot, dir), { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    // test/unit/layer-rules.test.ts plants `zz-probe-*` files for a moment while tests run in parallel
    if (entry.name.startsWith('zz-probe-')) continue;
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) serviceFiles(rel, out);
    else if (rel.endsWith('.ts') && !rel.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

describe('who opens a transaction', () => {
  it('reports a transaction or savepoint outside the allowed files, and nothing in comments or strings', () => {
    const probe = [
      '// db.transaction( in a comment is not a call',
      "const text = 'tx.transaction(';",
      'await deps.db.transaction(async (tx) => tx.execute(q));',
      'await tx.transaction((sp) => run(sp));',
      'await sql.begin(async (t) => t`select 1`);',
    ].join('\n');
    expect(violationsIn('activities/lending/zz-probe.ts', probe)).toEqual([
      'activities/lending/zz-probe.ts:3 deps.db.transaction(',
      'activities/lending/zz-probe.ts:4 tx.transaction(',
      'activities/lending/zz-probe.ts:5 sql.begin(',
    ]);
    // An allowed savepoint file may take a savepoint on its tx, not open a transaction on the handle.
    expect(violationsIn('activities/payments/collect-autopay-installment.ts', probe)).toEqual([
      'activities/payments/collect-autopay-installment.ts:3 deps.db.transaction(',
      'activities/payments/collect-autopay-installment.ts:5 sql.begin(',
    ]);
  });

  it('holds for every file of the service, and each allowed file still takes its transaction', () => {
    const files = serviceFolders.flatMap((f) => serviceFiles(f, []));
    const texts = new Map(files.map((f) => [f, readFileSync(path.join(projectRoot, f), 'utf8')]));
    expect(files.flatMap((f) => violationsIn(f, texts.get(f) as string))).toEqual([]);
    // A stale entry would let a new caller in unseen: each allowed file still calls `.transaction(`.
    for (const [file, rule] of Object.entries(allowed)) {
      expect(texts.get(file), `${file} (${rule.why})`).toMatch(
        new RegExp(`\\b${rule.receiver}\\.transaction\\(`),
      );
    }
  });
});
