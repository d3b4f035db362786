/**
 * The guardrail rules a key or a team opts into (KeyRecord.guardrails, TeamRecord.guardrails): names of
 * rules marked `opt_in` in the guardrails stage. One rule for what such a list may hold, read by
 * gateway.yaml's declared keys and by the admin API alike.
 */
import { z } from 'zod';
import { distinctList } from './distinct-list';

/** As the guardrails stage names its rules. */
export const GUARDRAIL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
export const MAX_GUARDRAILS = 32;

export const GUARDRAIL_NAME_EXPECTED = "a guardrail name: 1 to 64 of A-Z, a-z, 0-9, '_', '.' and '-'";
export const GUARDRAILS_EXPECTED = `an array of at most ${MAX_GUARDRAILS} distinct guardrail names`;

/** One name: a rule's or webhook's in the guardrails stage, or one a key or team opts into. */
export const guardrailName = z.string().regex(GUARDRAIL_NAME, `must be ${GUARDRAIL_NAME_EXPECTED}`);

/** A list of names; empty means none (stores keep none as no field at all). */
export const guardrailNames = distinctList(guardrailName, MAX_GUARDRAILS, GUARDRAILS_EXPECTED, 'names');
