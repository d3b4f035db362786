/**
 * Field tables. An API defines the rules of its fields (what a valid value is, whichever family serves
 * it); each family declares, in its plugin, which of those fields it takes (for every model, or per model
 * and per form), which it requires, and any of its own. The API's validation applies the family's table,
 * compiled once when the plugin is built.
 *
 * A field neither the API nor the family lists follows one rule (docs/contract.md): a relaying family
 * passes it to the vendor unchanged, as a client of that vendor expects; a translating family
 * (`translates: true`) cannot map it into the other API and refuses it, 400 unsupported_field naming it.
 * It is never dropped without a word.
 */
import type { z } from 'zod';
import { Errors } from '../../core/kit/plugin';
import type { JsonObject } from '../../core/kit/json';

/** One shape a field's value may take. */
export interface FieldRule {
  readonly schema: z.ZodType;
  /** What a valid value is, for the 400 message. */
  readonly expect: string;
  /** Names this form in a refusal when the model takes the field in other forms, e.g. `as an array`. */
  readonly as?: string;
}

/** A field with several forms (`system` as a string or as an array), by name. */
export interface FieldForms {
  readonly forms: Readonly<Record<string, FieldRule>>;
}

/** An API's rules of its fields. A field not listed is the family's to relay or refuse (`translates`). */
export type ApiFields = Readonly<Record<string, FieldRule | FieldForms>>;

/** The models that take a field, or one form of it; with `deprecated`, they take it with that warning. */
export type Takers<Model extends string> =
  readonly Model[] | { readonly models: readonly Model[]; readonly deprecated: string };

/** Per field, the models that take it: per form, for a field of several forms. */
export type PerModel<Rules extends ApiFields, Model extends string> = {
  readonly [F in keyof Rules]?: Rules[F] extends FieldForms
    ? { readonly [K in keyof Rules[F]['forms']]?: Takers<Model> }
    : Takers<Model>;
};

/** A family's fields, declared in its plugin. */
export interface FieldTable<Rules extends ApiFields, Model extends string = string> {
  /**
   * The API's fields the family takes: a list (every model, every form), or per field the models that
   * take it. The API's other fields are refused (400 unsupported_field).
   */
  readonly accepts: readonly (keyof Rules & string)[] | PerModel<Rules, Model>;
  /** Fields a request must carry. */
  readonly requires?: readonly string[];
  /** Fields of the family's own, beyond the API's, with their rules. */
  readonly own?: Readonly<Record<string, FieldRule>>;
  /** Fields the API does not list that the family refuses all the same. */
  readonly rejects?: readonly string[];
  /**
   * The family translates the request into another API: a field that neither the API's rules nor `own`
   * list has no counterpart there, so it is refused (400 unsupported_field naming it). Absent, the family
   * relays, and such a field reaches the vendor unchanged.
   */
  readonly translates?: boolean;
}

/** A field as one model takes it. */
interface ModelField {
  /** Every form, in order: a value takes the first it matches. */
  readonly forms: readonly FieldRule[];
  /** The forms the model takes, each with its deprecation warning, if any. None: the field is refused. */
  readonly taken: ReadonlyMap<FieldRule, string | undefined>;
  /** What the taken forms are, for the 400 message. */
  readonly expect: string;
}

/** One model's fields, ready for the request path. */
interface ModelFields {
  readonly fields: Readonly<Record<string, ModelField>>;
  readonly required: readonly string[];
}

/** Which models take a form; `models` undefined: all of them. */
interface Who {
  readonly models?: readonly string[];
  readonly warning?: string;
}

const EVERY: Who = {};
const REFUSED: ModelField = { forms: [], taken: new Map(), expect: '' };
const NO_WARNINGS: readonly string[] = [];

/** A family's table as compiling reads it, whatever its API. */
type AnyTable = Omit<FieldTable<ApiFields>, 'accepts'> & {
  readonly accepts: readonly string[] | Readonly<Record<string, unknown>>;
};

const isForms = (rule: FieldRule | FieldForms): rule is FieldForms => 'forms' in rule;
const formsOf = (rule: FieldRule | FieldForms): readonly FieldRule[] =>
  isForms(rule) ? Object.values(rule.forms) : [rule];
const isList = <T>(accepts: readonly T[] | object): accepts is readonly T[] => Array.isArray(accepts);
const who = (takers: Takers<string>): Who =>
  isList(takers) ? { models: takers } : { models: takers.models, warning: takers.deprecated };

/** A family's table compiled against its API's rules, once, when the plugin is built: each model's fields. */
export class FamilyFields {
  private readonly byModel: ReadonlyMap<string, ModelFields>;
  /** A model the table does not name takes only what every model takes. */
  private readonly anyModel: ModelFields;
  /** For a translating family, the members the API reads itself, which no table lists; else undefined. */
  private readonly readsItself: ReadonlySet<string> | undefined;

  /**
   * Compiles a family's `table` against its API's `rules`; `reads` names the members the API reads apart
   * from its field rules (chat's `messages`), which a translating family does not refuse. `model` is
   * every API's.
   */
  static compile<Rules extends ApiFields, Model extends string>(
    rules: Rules,
    table: FieldTable<Rules, Model>,
    reads: readonly string[] = [],
  ): FamilyFields {
    return new FamilyFields(rules, table, reads);
  }

  private constructor(rules: ApiFields, table: AnyTable, reads: readonly string[]) {
    this.readsItself = table.translates ? new Set(['model', ...reads]) : undefined;
    const takers = takersOf(rules, table);
    const fieldsOf = (model: string | undefined): ModelFields => {
      const fields: Record<string, ModelField> = {};
      for (const [field, rule] of Object.entries(rules)) {
        const forms = formsOf(rule);
        const taken = new Map<FieldRule, string | undefined>();
        forms.forEach((form, i) => {
          const w = takers.get(field)?.[i];
          const takes = w && (!w.models || (model !== undefined && w.models.includes(model)));
          if (takes) taken.set(form, w.warning);
        });
        fields[field] = { forms, taken, expect: [...taken.keys()].map((f) => f.expect).join(' or ') };
      }
      for (const field of table.rejects ?? []) fields[field] = REFUSED;
      for (const [field, rule] of Object.entries(table.own ?? {})) {
        fields[field] = { forms: [rule], taken: new Map([[rule, undefined]]), expect: rule.expect };
      }
      return { fields, required: table.requires ?? [] };
    };
    this.anyModel = fieldsOf(undefined);
    const named = new Set([...takers.values()].flat().flatMap((w) => w?.models ?? []));
    this.byModel = new Map([...named].map((model) => [model, fieldsOf(model)]));
  }

  /** Whether `model` takes `field` in some form. */
  takes(model: string, field: string): boolean {
    const rule = this.forModel(model).fields[field];
    return rule !== undefined && rule.taken.size > 0;
  }

  /** Throws 400 for the first required field the body lacks (`null` counts as absent). */
  require(body: JsonObject, model: string): void {
    for (const field of this.forModel(model).required) {
      if (body[field] == null) throw Errors.invalidRequest(`field '${field}' is required`);
    }
  }

  /**
   * Checks the body's listed fields: one the model does not take (or not in the form sent) is 400
   * unsupported_field, a value of no form 400 invalid_request; for a translating family an unlisted field
   * is 400 unsupported_field too. Returns the warnings of deprecated forms used.
   */
  check(body: JsonObject, model: string): readonly string[] {
    let warnings: string[] | undefined;
    const readsItself = this.readsItself;
    const unlisted =
      readsItself &&
      ((field: string) => {
        if (!readsItself.has(field)) throw Errors.unsupportedField(field, model);
      });
    forEachListedField(body, this.forModel(model).fields, unlisted, (field, value, rule) => {
      if (rule.taken.size === 0) throw Errors.unsupportedField(field, model);
      const form = rule.forms.find((f) => f.schema.safeParse(value).success);
      if (!form) throw Errors.invalidRequest(`field '${field}' must be ${rule.expect}`);
      if (!rule.taken.has(form)) throw Errors.unsupportedField(field, model, form.as);
      const warning = rule.taken.get(form);
      if (warning !== undefined) (warnings ??= []).push(warning);
    });
    return warnings ?? NO_WARNINGS;
  }

  private forModel(model: string): ModelFields {
    return this.byModel.get(model) ?? this.anyModel;
  }
}

/**
 * What an API offers its families for its `rules`: their tables compiled once, when the plugin is built
 * (FamilyFields.compile; `reads` as there).
 */
export const fieldsCompiler =
  <Rules extends ApiFields>(rules: Rules, reads: readonly string[] = []) =>
  <Model extends string = string>(table: FieldTable<Rules, Model>): FamilyFields =>
    FamilyFields.compile(rules, table, reads);

/** Per field, who takes each of its forms (in the order of formsOf). */
function takersOf(rules: ApiFields, table: AnyTable): Map<string, (Who | undefined)[]> {
  const takers = new Map<string, (Who | undefined)[]>();
  const { accepts } = table;
  if (isList(accepts)) {
    for (const field of accepts) {
      const everyForm = formsOf(rules[field]!).map(() => EVERY);
      takers.set(field, everyForm);
    }
    return takers;
  }
  for (const [field, cell] of Object.entries(accepts)) {
    const rule = rules[field]!;
    if (!isForms(rule)) {
      takers.set(field, [who(cell as Takers<string>)]);
      continue;
    }
    const byForm = cell as Readonly<Record<string, Takers<string> | undefined>>;
    const forms = Object.keys(rule.forms).map((name) => byForm[name] && who(byForm[name]));
    takers.set(field, forms);
  }
  return takers;
}

/**
 * Calls `check` for each of the body's fields that the table lists, with its rule, and `unlisted` (when
 * given: a translating family's) for each it does not. Unlisted fields are otherwise the relaying
 * family's to pass through unchanged, and a field sent as `null` counts as absent. Own properties only: a
 * body key such as `constructor` is an unlisted field, not a rule. (A callback, not a generator: this
 * runs on every request.)
 */
function forEachListedField<Rule>(
  body: JsonObject,
  table: Readonly<Record<string, Rule>>,
  unlisted: ((field: string) => void) | undefined,
  check: (field: string, value: unknown, rule: Rule) => void,
): void {
  for (const field in body) {
    const value = body[field];
    if (value === null || value === undefined) continue;
    if (Object.hasOwn(table, field)) check(field, value, table[field]!);
    else unlisted?.(field);
  }
}
