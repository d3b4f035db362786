/** One running part of a gateway, as builders make them and the lifecycle (lifecycle.ts) runs them. */

/** One part of a running gateway. A part without `start` is running when it is added. */
export interface Part {
  readonly name: string;
  /** The parts this one needs running: it starts after every one of them and stops before them. */
  readonly needs?: readonly string[];
  start?(): void | Promise<void>;
  /** `deadline` (epoch ms) is when the grace period of the whole stop runs out. */
  stop?(deadline: number): void | Promise<void>;
}

/** What a builder of the gateway returns: its services, and its parts to join the lifecycle. */
export type WithParts<T> = T & { readonly parts: readonly Part[] };

/** The names of the parts some builders returned, for the parts of a later one to need. */
export const partsOf = (...built: readonly { readonly parts: readonly Part[] }[]): string[] =>
  built.flatMap(({ parts }) => parts.map((part) => part.name));
