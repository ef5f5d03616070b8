import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { toTestRedis } from './redis-tag.js';

// The @example blocks of the package's exports, read from the sources with the compiler, and
// turned into modules that run against the sources (test/examples.test.ts runs them, and
// test/redis/examples.test.ts those that connect to Redis).

const root = resolve(import.meta.dirname, '..');

/** An entry of the package: what a reader imports (`traderatio`, `traderatio/fetch`) and its source. */
export interface Entry {
  /** `index`, `fetch`, `gate-api`, ...: the key of tsup.config.ts's entry map. */
  readonly name: string;
  /** `traderatio` or `traderatio/<name>`. */
  readonly specifier: string;
  /** The source file, relative to the repository: `src/fetch/index.ts`. */
  readonly source: string;
}

/** One @example of an export (or of a public member of an exported class). */
export interface Example {
  /** `limitedFetch`, or `Class.member` for a member's. */
  readonly of: string;
  /** Where the comment is, `src/fetch/limited-fetch.ts:40`. */
  readonly at: string;
  /** The code of the block, as written. */
  readonly code: string;
}

/** An export of an entry and the examples written for it. */
export interface Export {
  readonly name: string;
  /** The export's own examples (its declaration's, or its re-export's in the entry). */
  readonly examples: readonly Example[];
  /** Those of the public members of an exported class. */
  readonly memberExamples: readonly Example[];
}

/**
 * The package's entries, from package.json "exports": the root (`src/index.ts`) and every subpath
 * `./<name>` (`src/<name>/index.ts`).
 */
export function entries(): Entry[] {
  const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, unknown>;
  };
  return Object.keys(exports)
    .filter((key) => key === '.' || /^\.\/[\w-]+$/.test(key))
    .map((key) => {
      const name = key === '.' ? 'index' : key.slice(2);
      return {
        name,
        specifier: key === '.' ? 'traderatio' : `traderatio/${name}`,
        source: key === '.' ? 'src/index.ts' : `src/${name}/index.ts`,
      };
    });
}

/** Every export of each entry with its examples, from one program over the sources. */
export function exportsOf(list: readonly Entry[]): Map<string, Export[]> {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  };
  const program = ts.createProgram(
    list.map((e) => join(root, e.source)),
    options,
  );
  const checker = program.getTypeChecker();
  const result = new Map<string, Export[]>();
  for (const entry of list) {
    const file = program.getSourceFile(join(root, entry.source));
    const module = file === undefined ? undefined : checker.getSymbolAtLocation(file);
    if (module === undefined) throw new Error(`${entry.source} is not a module`);
    result.set(
      entry.name,
      checker.getExportsOfModule(module).map((symbol) => exportOf(checker, symbol)),
    );
  }
  return result;
}

function exportOf(checker: ts.TypeChecker, exported: ts.Symbol): Export {
  const examples: Example[] = [];
  const memberExamples: Example[] = [];
  // A re-export may carry the example itself (`/** @example ... */ export { X } from '...'`): the
  // entry documents what it re-exports, in place of the declaration (another entry's may differ).
  let symbol = exported;
  while (symbol.flags & ts.SymbolFlags.Alias) {
    for (const d of symbol.declarations ?? []) {
      const statement = ts.isExportSpecifier(d) ? d.parent.parent : d;
      examples.push(...examplesOf(statement, exported.name));
    }
    const next = checker.getImmediateAliasedSymbol(symbol);
    if (next === undefined || next === symbol) break;
    symbol = next;
  }
  const documented = examples.length > 0;
  for (const d of symbol.declarations ?? []) {
    if (!documented) examples.push(...examplesOf(d, exported.name));
    if (ts.isClassDeclaration(d)) {
      for (const m of d.members) {
        if (m.name === undefined || ts.isPrivateIdentifier(m.name)) continue;
        const modifiers = ts.getCombinedModifierFlags(m);
        if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) continue;
        if (ts.getJSDocTags(m).some((t) => t.tagName.text === 'internal')) continue;
        const member = ts.isConstructorDeclaration(m) ? 'constructor' : m.name.getText();
        memberExamples.push(...examplesOf(m, `${exported.name}.${member}`));
      }
    }
  }
  return { name: exported.name, examples: dedupe(examples), memberExamples: dedupe(memberExamples) };
}

function dedupe(list: Example[]): Example[] {
  return list.filter((e, i) => list.findIndex((o) => o.at === e.at && o.code === e.code) === i);
}

function examplesOf(node: ts.Node, of: string): Example[] {
  const source = node.getSourceFile();
  // The comment of `export const X = ...` is on its statement, not on the declaration of X.
  const commented = ts.isVariableDeclaration(node) ? node.parent.parent : node;
  const docs = (commented as { jsDoc?: ts.JSDoc[] }).jsDoc ?? [];
  const out: Example[] = [];
  for (const doc of docs) {
    for (const tag of doc.tags ?? []) {
      if (tag.tagName.text !== 'example') continue;
      const text = ts.getTextOfJSDocComment(tag.comment) ?? '';
      const fenced = /```(?:ts|typescript)?\n([\s\S]*?)```/.exec(text);
      const code = (fenced === null ? text : fenced[1]!).trim();
      if (code === '') continue;
      const line = source.getLineAndCharacterOfPosition(tag.getStart()).line + 1;
      out.push({ of, at: `${relative(root, source.fileName)}:${line}`, code });
    }
  }
  return out;
}

/** Whether `text` is a JavaScript literal: a number, string, array or object of them, true, false, null. */
function isLiteral(text: string): boolean {
  const file = ts.createSourceFile('value.ts', `(${text});`, ts.ScriptTarget.ES2022, true);
  const statement = file.statements[0];
  if (file.statements.length !== 1 || statement === undefined || !ts.isExpressionStatement(statement)) return false;
  if ((file as { parseDiagnostics?: unknown[] }).parseDiagnostics?.length) return false;
  const literal = (e: ts.Expression): boolean => {
    if (ts.isParenthesizedExpression(e)) return literal(e.expression);
    if (ts.isNumericLiteral(e) || ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return true;
    if (
      e.kind === ts.SyntaxKind.TrueKeyword ||
      e.kind === ts.SyntaxKind.FalseKeyword ||
      e.kind === ts.SyntaxKind.NullKeyword
    )
      return true;
    if (ts.isPrefixUnaryExpression(e)) return e.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(e.operand);
    if (ts.isArrayLiteralExpression(e)) return e.elements.every((x) => literal(x));
    if (ts.isObjectLiteralExpression(e)) {
      return e.properties.every(
        (p) => ts.isPropertyAssignment(p) && !ts.isComputedPropertyName(p.name) && literal(p.initializer),
      );
    }
    return false;
  };
  return literal(statement.expression);
}

/**
 * The example as a test module: `expression // value`, where value is a literal, becomes
 * `expect(expression).toEqual(value)`; other comments stay comments. Imports of the package go
 * to the sources (`from` paths relative to test/.examples/).
 */
export function toModule(code: string): { readonly text: string; readonly assertions: number } {
  const file = ts.createSourceFile('example.ts', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const edits: { start: number; end: number; text: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isExpressionStatement(node)) {
      const comments = ts.getTrailingCommentRanges(code, node.end) ?? [];
      const comment = comments[0];
      if (comment !== undefined && comment.kind === ts.SyntaxKind.SingleLineCommentTrivia) {
        const value = code.slice(comment.pos + 2, comment.end).trim();
        if (isLiteral(value)) {
          edits.push({
            start: node.getStart(file),
            end: comment.end,
            text: `expect(${node.expression.getText(file)}).toEqual(${value}); // ${value}`,
          });
          return;
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  let text = code;
  for (const e of edits.sort((a, b) => b.start - a.start)) text = text.slice(0, e.start) + e.text + text.slice(e.end);
  text = text
    .replace(/from 'traderatio\/([a-z-]+)'/g, "from '../../src/$1/index.js'")
    .replaceAll("from 'traderatio'", "from '../../src/index.js'");
  return { text: `import { expect } from 'vitest';\n${text}\n`, assertions: edits.length };
}

/** Whether the example imports what it uses from the package, as a reader's would. */
export function importsThePackage(code: string): boolean {
  return /from 'traderatio(\/[a-z-]+)?'/.test(code);
}

/** Runs an example as a module written to `out`, its Redis the tests' own. */
export async function runExample(out: string, entry: string, example: Example, i: number): Promise<void> {
  const path = join(out, `${entry}_${example.of.replace(/\W/g, '_')}_${i}.ts`);
  writeFileSync(path, toModule(toTestRedis(example.code)).text);
  await import(pathToFileURL(path).href);
}
