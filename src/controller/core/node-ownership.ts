/** What the Controller an Agent said hello to answers: serve it here, or send it to the holder. */
export type Admission =
  | { kind: 'mine'; term: number }
  | { kind: 'elsewhere'; address: string }
  | { kind: 'unavailable' };

/**
 * Which Nodes this Controller drives. On the embedded store one Controller drives every Node,
 * under term 0 (no lease); on MongoDB it drives the Nodes whose lease it holds. This is also the
 * seam for forwarding console and file operations between Controllers: a Node whose `termFor`
 * is undefined is driven by `holders()`'s Controller, reached at its lease's address.
 */
export interface NodeOwnership {
  readonly controllerId: string;
  /** The lease term to act on the Node under; undefined when this Controller must not act on it. */
  termFor(nodeId: string): number | undefined;
  /** An Agent of the Node said hello here: serve it (claiming a free lease), or send it to the holder. */
  admit(nodeId: string): Promise<Admission>;
  /** The id of the Controller driving each of these Nodes now; a Node nobody drives is left out. */
  holders(nodeIds: readonly string[]): Promise<Map<string, string>>;
}
