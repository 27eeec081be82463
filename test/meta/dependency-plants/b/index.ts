// Planted: the other half of the cycle.
import { a } from '../a/index.js';
export const b = () => a;
