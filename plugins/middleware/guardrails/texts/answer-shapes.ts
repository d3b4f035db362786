/**
 * Where each client API's JSON answer carries what the model wrote, in the order it wrote it, and how
 * the answer says a filter stopped it: the text from the blocked match on is withheld, with everything
 * the model wrote after it, as a stream ends there; the usage stays, the call was made.
 */
import type { JsonObject } from '../../../../core/kit/json';
import { isJsonObject } from '../../../../core/kit/json';
import { textsAt, paths, type TextSlot } from './text-paths';
import { STRING_INSIDE, stringText } from './string-text';

/** One stretch of an answer (a chat choice; a whole Message or Response), its texts in order. */
export interface AnswerPart {
  readonly texts: readonly TextSlot[];
  /** Puts `kept` (the text before the blocked match) for texts[index], withholds all after it, and states the filter. */
  cut(index: number, kept: string): void;
}

export interface AnswerShape {
  parts(body: JsonObject): AnswerPart[];
  /**
   * The texts of an answer of the API's plainest form, read from its text without parsing it; undefined
   * when it is not plainly of that form. Most answers are, and most match no rule: they then go to the
   * client with no parse at all.
   */
  plainTexts?(raw: string): readonly string[] | undefined;
}

const objects = (value: unknown): JsonObject[] => (Array.isArray(value) ? value.filter(isJsonObject) : []);

/** Items of `list` up to `keep` (exclusive) stay; item `keep` is cut by `within` or dropped if it returns false. */
function keepBefore(list: JsonObject[], keep: number, within: (item: JsonObject) => boolean): JsonObject[] {
  const item = list[keep];
  return item && within(item) ? list.slice(0, keep + 1) : list.slice(0, keep);
}

/** The texts of a list of items, each with the item's index. */
function itemTexts(items: JsonObject[], where: string[]): { slots: TextSlot[]; owner: number[] } {
  const slots: TextSlot[] = [];
  const owner: number[] = [];
  items.forEach((item, i) => {
    for (const slot of textsAt(item, paths(...where))) {
      slots.push(slot);
      owner.push(i);
    }
  });
  return { slots, owner };
}

const CHOICES = '"choices":[';

/**
 * A chat answer's choices that are one message of text and nothing else (members that are null or
 * empty lists aside), written as vendors write them: compact, the index first. Read from just after
 * `"choices":[`.
 */
const PLAIN_CHOICES = new RegExp(
  String.raw`\{"index":\d+,"message":\{"role":"assistant","content":"${STRING_INSIDE}"(?:,"\w+":(?:null|\[\]))*\}(?:,"\w+":(?:null|"\w*"))*\}\]`,
  'y',
);

const chat: AnswerShape = {
  plainTexts(raw) {
    const at = raw.indexOf(CHOICES);
    if (at < 0) return undefined;
    PLAIN_CHOICES.lastIndex = at + CHOICES.length;
    const match = PLAIN_CHOICES.exec(raw);
    const text = match === null ? undefined : stringText(match[1]!);
    return text === undefined ? undefined : [text];
  },
  parts: (body) =>
    objects(body.choices).map((choice) => {
      const message = isJsonObject(choice.message) ? choice.message : {};
      const calls = objects(message.tool_calls);
      const content = textsAt(message, paths('content'));
      const { slots, owner } = itemTexts(calls, ['function.arguments']);
      return {
        texts: [...content, ...slots],
        cut(index, kept) {
          choice.finish_reason = 'content_filter';
          if (index < content.length) {
            content[index]!.set(kept);
            delete message.tool_calls;
            return;
          }
          const before = calls.slice(0, owner[index - content.length]); // a call's cut arguments are no call
          if (before.length) message.tool_calls = before;
          else delete message.tool_calls;
        },
      };
    }),
};

/** Content blocks (messages) or output items (responses): a text is cut where it matched, anything else dropped. */
function listPart(
  body: JsonObject,
  member: string,
  where: string[],
  isText: (item: JsonObject) => boolean,
  stated: () => void,
): AnswerPart {
  const items = objects(body[member]);
  const { slots, owner } = itemTexts(items, where);
  return {
    texts: slots,
    cut(index, kept) {
      stated();
      const item = owner[index]!;
      slots[index]!.set(kept);
      const later = slots.filter((_, i) => i > index && owner[i] === item);
      for (const rest of later) rest.set('');
      body[member] = keepBefore(items, item, (it) => isText(it) && kept !== '');
    },
  };
}

const messages: AnswerShape = {
  parts: (body) => [
    listPart(
      body,
      'content',
      ['text', 'input.**'],
      (block) => block.type === 'text',
      () => {
        body.stop_reason = 'refusal';
        body.stop_sequence = null;
      },
    ),
  ],
};

const responses: AnswerShape = {
  parts: (body) => [
    listPart(
      body,
      'output',
      ['content.*.text', 'arguments'],
      (item) => item.type === 'message',
      () => {
        body.status = 'incomplete';
        body.incomplete_details = { reason: 'content_filter' };
      },
    ),
  ],
};

/** By endpoint id; an API without texts of its own (embeddings) has no entry. */
export const ANSWER_SHAPES: Readonly<Record<string, AnswerShape>> = {
  'chat-completions': chat,
  messages,
  responses,
};
