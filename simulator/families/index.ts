import { chatFamily } from '../chat/handler';
import { withRoutes, type Family } from '../family';
import { modela } from './modela';
import { modelb, modelbImageRoutes } from './modelb';
import { modelc } from './modelc';
import { modeld } from './modeld';
import { videoa } from './videoa';
import { videob } from './videob';

/** Every family the simulator speaks; the only list of them. Add a family by adding a line. */
export const families: readonly Family[] = [
  chatFamily(modela),
  withRoutes(chatFamily(modelb), modelbImageRoutes),
  chatFamily(modelc),
  modeld,
  videoa,
  videob,
];
