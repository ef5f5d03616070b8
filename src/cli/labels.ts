/** The height a line of the charts' 11-pixel text takes, with the room it needs from the next. */
export const LABEL_HEIGHT = 13;

/** A label a chart would like to write in a column, centred on `y`; the lower `rank`, the more it matters. */
export interface LabelWish<T> {
  readonly y: number;
  readonly rank: number;
  readonly label: T;
}

/**
 * The labels of one column that can be written without two touching: in order of rank (ties
 * top first), each is kept when it is at least {@link LABEL_HEIGHT} from every label kept before
 * it, and left out otherwise. What the label marks (a band, a line) is drawn either way.
 */
export function labelsApart<T>(wishes: readonly LabelWish<T>[]): LabelWish<T>[] {
  const kept: LabelWish<T>[] = [];
  const order = [...wishes].sort((a, b) => a.rank - b.rank || a.y - b.y);
  for (const w of order) {
    if (kept.every((k) => Math.abs(k.y - w.y) >= LABEL_HEIGHT)) kept.push(w);
  }
  return kept.sort((a, b) => a.y - b.y);
}
