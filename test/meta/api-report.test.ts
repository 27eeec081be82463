/**
 * The public API is changed on purpose only: the built declarations of each entry point must match the
 * committed API Extractor report in docs/api-report/ (`npm run api-report` rewrites it after a deliberate
 * change). npm test builds first.
 */
import { describe, expect, it } from 'vitest';
import { API_ENTRIES, apiReports, REPORT_DIR } from '../../scripts/api-report.js';

describe('API report', () => {
  it(`the built API of ${Object.keys(API_ENTRIES).join(', ')} matches ${REPORT_DIR}/`, () => {
    const differ = apiReports(false);
    for (const d of differ) {
      expect(d.actual, `${REPORT_DIR}/${d.name}.api.md is out of date: run npm run api-report if the change is deliberate`).toBe(d.expected);
    }
    expect(differ).toEqual([]);
  });
});
