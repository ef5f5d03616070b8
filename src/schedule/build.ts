import { InvalidInputError } from '../errors.js';

declare const __TRADERATIO_FORMAT__: string | undefined;
declare const __TRADERATIO_VERSION__: string | undefined;

/**
 * Which build of traderatio this copy is: `ESM` (the package, whose CommonJS entries require the
 * same ES modules), or `source` (the TypeScript sources, in this repository's tests).
 */
export const BUILD: string = typeof __TRADERATIO_FORMAT__ === 'string' ? __TRADERATIO_FORMAT__ : 'source';

/**
 * This copy of the library, as its objects carry it. A program may load two copies (two installed
 * versions, or one bundled into the program beside one installed): each has its own classes and
 * `systemClock`, and an object of one is not an object of the other.
 */
interface Copy {
  readonly build: string;
  readonly version: string;
}
const COPY: Copy = Object.freeze({
  build: BUILD,
  version: typeof __TRADERATIO_VERSION__ === 'string' ? __TRADERATIO_VERSION__ : 'source',
});

const MARK = Symbol.for('traderatio.copy');

/** Marks `target` (a shared object, or a class's prototype) as an object of this copy. */
export function markBuild<T extends object>(target: T): T {
  Object.defineProperty(target, MARK, { value: COPY });
  return target;
}

/** The copy a marked object belongs to, or undefined for any other value. */
export function copyOf(value: unknown): Copy | undefined {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
  const mark = (value as { [MARK]?: unknown })[MARK];
  return typeof mark === 'object' && mark !== null ? (mark as Copy) : undefined;
}

/** The build of a marked object (`ESM`, `CommonJS`, `source`), or undefined for any other value. */
export function buildOf(value: unknown): string | undefined {
  return copyOf(value)?.build;
}

/**
 * Objects of two copies of traderatio met: `what` of one copy was given to `where` of another.
 * Said plainly, since the usual message ("expected the store's clock, got {}") does not tell.
 */
export class MixedBuildsError extends InvalidInputError {
  constructor(what: string, value: unknown, theirs: Copy, where: string, ours: Copy) {
    super(what, value, `an object of the same copy of traderatio as ${where}`);
    const name = (c: Copy) => `the ${c.build} build of traderatio ${c.version}`;
    this.message =
      `${what} comes from ${name(theirs)} and ${where} from ${theirs.build === ours.build && theirs.version === ours.version ? 'another copy of it' : name(ours)}: ` +
      "the program loads two copies of the library (two installed versions, or one bundled and one installed), whose classes and clocks are not each other's. " +
      'Load traderatio and traderatio/redis from one installation.';
  }
}

/** Throws a {@link MixedBuildsError} when `value` and `other` are marked objects of two copies. */
export function checkSameBuild(what: string, value: unknown, where: string, other: unknown): void {
  const theirs = copyOf(value);
  const ours = copyOf(other);
  if (theirs !== undefined && ours !== undefined && theirs !== ours)
    throw new MixedBuildsError(what, value, theirs, where, ours);
}
