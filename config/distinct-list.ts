/** Lists of names keys and teams carry (guardrails opted into, MCP tools allowed): bounded, none twice. */
import { z } from 'zod';

/**
 * At most `max` entries, each `entry`, none given twice. `expected` says what the list must be (the
 * error for a long one), `verb` how a repeat is named (`names 'x' twice`, `lists 'x' twice`).
 */
export const distinctList = (entry: z.ZodString, max: number, expected: string, verb: 'names' | 'lists') =>
  z
    .array(entry)
    .max(max, `must be ${expected}`)
    .superRefine((items, ctx) => {
      const twice = items.find((item, i) => items.indexOf(item) !== i);
      if (twice !== undefined) ctx.addIssue({ code: 'custom', message: `${verb} '${twice}' twice` });
    });
