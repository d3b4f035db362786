/** A typed, namespaced slot in the request's state (docs/conventions.md#convention-9). */
export class StateKey<T> {
  declare private readonly type: T;
  constructor(
    readonly owner: string,
    readonly name: string,
  ) {}
}
