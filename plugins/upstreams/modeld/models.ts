/**
 * modeld's models: their output ceilings, and which of the messages fields (and which forms of them) each
 * model takes.
 */
import type { MessagesFieldTable } from '../../apis/messages';

const SONNET_46 = 'modeld-sonnet-4-6';
const OPUS_48 = 'modeld-opus-4-8';
const SONNET_45 = 'modeld-sonnet-4-5-20250929';
const OPUS_46 = 'modeld-opus-4-6';
export const MODELD_MODELS = [SONNET_46, OPUS_48, SONNET_45, OPUS_46] as const;
export type ModeldModel = (typeof MODELD_MODELS)[number];

/** The vendor's documented output ceilings: 128k tokens on its Opus models, 64k on Sonnet. */
export const MAX_OUTPUT: Readonly<Record<ModeldModel, number>> = {
  [SONNET_46]: 64_000,
  [OPUS_48]: 128_000,
  [SONNET_45]: 64_000,
  [OPUS_46]: 128_000,
};

const ALL: readonly ModeldModel[] = MODELD_MODELS;
const LATEST: readonly ModeldModel[] = [SONNET_46, OPUS_48];
const SAMPLING: readonly ModeldModel[] = [SONNET_46, SONNET_45, OPUS_46];

export const MODELD_FIELDS: MessagesFieldTable<ModeldModel> = {
  accepts: {
    max_tokens: ALL,
    stream: ALL,
    system: { string: ALL, array: LATEST },
    temperature: SAMPLING,
    top_p: SAMPLING,
    top_k: [SONNET_46],
    stop_sequences: ALL,
    tools: ALL,
    tool_choice: { auto: ALL, any: ALL, tool: ALL, none: LATEST },
    metadata: LATEST,
    thinking: {
      adaptive: LATEST,
      disabled: LATEST,
      enabled: {
        models: [SONNET_46],
        deprecated: `thinking type 'enabled' with budget_tokens is deprecated on ${SONNET_46}; use type 'adaptive'`,
      },
    },
    output_config: LATEST,
  },
  requires: ['max_tokens'],
};
