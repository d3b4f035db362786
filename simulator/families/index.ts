import { chatFamily } from '../chat/handler';
import type { Family } from '../family';
import { modela } from './modela';
import { modelb } from './modelb';
import { modelc } from './modelc';
import { modeld } from './modeld';

/** Every family the simulator speaks; the only list of them. Add a family by adding a line. */
export const families: readonly Family[] = [
  chatFamily(modela),
  chatFamily(modelb),
  chatFamily(modelc),
  modeld,
];
