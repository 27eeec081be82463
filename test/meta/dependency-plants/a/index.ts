// A planted violation for test/meta/dependencies.test.ts: a cycle with b/index.ts, a deep import and a node: import.
import { b } from '../b/index.js';
import { deep } from '../b/deep.js';
import { readFileSync } from 'node:fs';
export const a = () => [b, deep, readFileSync];
