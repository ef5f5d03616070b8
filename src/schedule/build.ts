import { InvalidInputError } from '../errors.js';

declare const __TRADERATIO_FORMAT__: string | undefined;

/**
 * Which build of traderatio this copy is: `ESM` (loaded with `import`), `CommonJS` (loaded with
 * `require`), or `source` (the TypeScript sources, in this repository's tests). A program that
 * loads both builds has two copies of every class and of `systemClock`, and an object of one is
 * not an object of the other.
 */
export const BUILD: string = typeof __TRADERATIO_FORMAT__ === 'string' ? __TRADERATIO_FORMAT__ : 'source';

const MARK = Symbol.for('traderatio.build');

/** Marks `target` (a shared object, or a class's prototype) with this copy's build. */
export function markBuild<T extends object>(target: T): T {
  Object.defineProperty(target, MARK, { value: BUILD });
  return target;
}

/** The build of a marked object, or undefined for any other value. */
export function buildOf(value: unknown): string | undefined {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
  const mark = (value as { [MARK]?: unknown })[MARK];
  return typeof mark === 'string' ? mark : undefined;
}

/**
 * Objects of two copies of traderatio met: `what` of one build was given to `where` of another.
 * Said plainly, since the usual message ("expected the store's clock, got {}") does not tell.
 */
export class MixedBuildsError extends InvalidInputError {
  constructor(what: string, value: unknown, theirs: string, where: string, ours: string) {
    super(what, value, `an object of the same copy of traderatio as ${where}`);
    this.message = `${what} comes from the ${theirs} build of traderatio and ${where} from its ${ours} build: the program loads two copies ` +
      '(one with import, one with require), whose classes and clocks are not each other\'s. Load traderatio and traderatio/redis the same way (both import, or both require).';
  }
}

/** Throws a {@link MixedBuildsError} when `value` and `other` are marked objects of two builds. */
export function checkSameBuild(what: string, value: unknown, where: string, other: unknown): void {
  const theirs = buildOf(value);
  const ours = buildOf(other);
  if (theirs !== undefined && ours !== undefined && theirs !== ours) throw new MixedBuildsError(what, value, theirs, where, ours);
}
