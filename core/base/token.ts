/**
 * Typed dependency-injection tokens (docs/conventions.md#convention-7). tsyringe symbols carry no type, so
 * each token is branded with the type it resolves to. A token is declared beside what it names; only the
 * composition root registers and resolves them.
 */
export type Token<T> = symbol & { readonly __type?: T };
export const token = <T>(name: string): Token<T> => Symbol(name);
