// Parts of nedb its typings leave out: the cursor class and the value order, which `findShared` uses; the line parser, which the quick load uses, and its writer, which batched appends use; index keys, which removal in place reads.
declare module '@seald-io/nedb/lib/cursor.js' {
  import type Datastore from '@seald-io/nedb';

  export default class Cursor<T> {
    constructor(db: Datastore, query: Record<string, unknown>);
    execAsync(): Promise<T[]>;
  }
}

declare module '@seald-io/nedb/lib/model.js' {
  const model: {
    getDotValue(doc: unknown, field: string | string[]): unknown;
    compareThings(a: unknown, b: unknown): number;
    deserialize(line: string): unknown;
    serialize(doc: unknown): string;
    getDotValues(doc: unknown, fields: string[]): unknown;
  };
  export default model;
}
