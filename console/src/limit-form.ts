/**
 * The fields keys and teams share in their forms: allowed models and MCP tools, guardrails, rate limits
 * and a budget, read from a record, shown as inputs, and turned into the API's body fields.
 */
import { html } from 'htm/preact';
import type { KeyBudget } from '../../core/admin/wire';
import { money, parseMoney } from './format';

/** What a key or a team has of these fields (PublicKey and PublicTeam alike). */
export interface LimitedRecord {
  readonly allowed_models: readonly string[];
  readonly allowed_tools?: readonly string[];
  readonly guardrails?: readonly string[];
  readonly rate_limit_rpm?: number;
  readonly rate_limit_tpm?: number;
  readonly max_concurrent?: number;
  readonly budget?: KeyBudget;
}

export interface LimitState {
  models: string;
  /** Comma-separated MCP tool names or globs (`search__*`); empty: every tool. */
  tools: string;
  /** Comma-separated names of opt-in guardrail rules. */
  guardrails: string;
  rpm: string;
  tpm: string;
  concurrent: string;
  budget: string;
  period: 'total' | 'month';
}

export const limitStateOf = (r?: LimitedRecord): LimitState => ({
  models: r?.allowed_models.join(', ') ?? '',
  tools: r?.allowed_tools?.join(', ') ?? '',
  guardrails: r?.guardrails?.join(', ') ?? '',
  rpm: r?.rate_limit_rpm?.toString() ?? '',
  tpm: r?.rate_limit_tpm?.toString() ?? '',
  concurrent: r?.max_concurrent?.toString() ?? '',
  budget: r?.budget ? money(r.budget.amount_micros).replace(/,/g, '') : '',
  period: r?.budget?.period ?? 'month',
});

/** Comma-separated names as a list, blanks dropped. */
const namesOf = (text: string): string[] =>
  text
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);

/** A limit field: empty (undefined) or a whole number above 0. */
function wholeNumber(text: string, label: string): number | undefined {
  const value = text.trim();
  if (value && !/^[1-9]\d*$/.test(value)) throw new Error(`${label} must be a whole number above 0.`);
  return value ? Number(value) : undefined;
}

/**
 * The body fields for the state; in an edit, empty ones are cleared with null, in a create left out.
 * Throws, with what to correct, when a field cannot be read.
 */
export function limitBody(f: LimitState, editing: boolean): Record<string, unknown> {
  const clear = editing ? null : undefined;
  const amount = f.budget.trim() ? parseMoney(f.budget) : undefined;
  if (f.budget.trim() && amount === undefined)
    throw new Error('Budget must be an amount such as 25 or 0.50.');
  const tools = namesOf(f.tools);
  const guardrails = namesOf(f.guardrails);
  return {
    allowed_models: namesOf(f.models),
    allowed_tools: tools.length > 0 ? tools : clear,
    guardrails: guardrails.length > 0 ? guardrails : clear,
    rate_limit_rpm: wholeNumber(f.rpm, 'Rate limit') ?? clear,
    rate_limit_tpm: wholeNumber(f.tpm, 'Token limit') ?? clear,
    max_concurrent: wholeNumber(f.concurrent, 'Concurrent requests') ?? clear,
    budget: amount !== undefined ? { amount_micros: amount, period: f.period } : clear,
  };
}

/** Leaves out the fields a create does not send. */
export const defined = (body: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));

/** The inputs; `placeholder` says what applies when a limit is left empty. */
export function LimitInputs(props: {
  state: LimitState;
  set: (name: keyof LimitState) => (e: Event) => void;
  placeholder: string;
}) {
  const { state: f, set, placeholder } = props;
  const limit = (name: 'rpm' | 'tpm' | 'concurrent') =>
    html`<input
      name=${name}
      inputmode="numeric"
      placeholder=${placeholder}
      value=${f[name]}
      onInput=${set(name)}
    />`;
  return html`<label
      >Allowed models
      <input name="models" placeholder="all models" value=${f.models} onInput=${set('models')}
    /></label>
    <label
      >Allowed tools
      <input
        name="tools"
        placeholder="all tools (names or globs, e.g. search__*)"
        value=${f.tools}
        onInput=${set('tools')}
    /></label>
    <label
      >Guardrails
      <input
        name="guardrails"
        placeholder="none (names of opt-in rules)"
        value=${f.guardrails}
        onInput=${set('guardrails')}
    /></label>
    <label>Rate limit (requests/min) ${limit('rpm')}</label>
    <div class="row">
      <label>Tokens/min ${limit('tpm')}</label>
      <label>Concurrent requests ${limit('concurrent')}</label>
    </div>
    <div class="row">
      <label
        >Budget
        <input
          name="budget"
          inputmode="decimal"
          placeholder="none"
          value=${f.budget}
          onInput=${set('budget')}
      /></label>
      <label
        >Per
        <select name="period" value=${f.period} onChange=${set('period')}>
          <option value="month">calendar month</option>
          <option value="total">in total</option>
        </select></label
      >
    </div>`;
}
