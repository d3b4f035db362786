/**
 * The conversation being built for a messages request: the system text apart (messages has no system
 * role), and the turns, where a block joins the last turn when that turn has its role. Messages wants
 * user and assistant turns to alternate, and an assistant's parallel tool calls in one turn answered by
 * one user turn of their results; Responses sends each as an item of its own.
 */
import type { JsonObject } from '../../../core/kit/json';

export type TurnRole = 'user' | 'assistant';

export class Turns {
  readonly system: string[] = [];
  readonly messages: JsonObject[] = [];

  constructor(readonly model: string) {}

  /**
   * Adds `blocks` to the last turn when it is `role`'s, else as a new turn. Empty text is left out:
   * messages refuses an empty text block, and it says nothing.
   */
  add(role: TurnRole, content: readonly JsonObject[]): void {
    const blocks = content.filter((b) => b.text !== '');
    if (blocks.length === 0) return;
    const last = this.messages.at(-1);
    if (last?.role === role) (last.content as JsonObject[]).push(...blocks);
    else this.messages.push({ role, content: [...blocks] });
  }
}
